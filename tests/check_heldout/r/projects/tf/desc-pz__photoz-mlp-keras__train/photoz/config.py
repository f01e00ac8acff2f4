CATALOG = "/global/cfs/cdirs/lsst/shared/photoz/cosmodc2_train_gold.h5"
OUT_DIR = "photoz_run"
BATCH_SIZE = 512      # per rank
EPOCHS = 60
LR = 1e-3
HIDDEN = (256, 256, 128)
DROPOUT = 0.05
BANDS = ("u", "g", "r", "i", "z", "y")
