# default hyper-parameters; train.py exposes the interesting ones as flags
PATCH = 32
IN_CHANNELS = 1
NUM_CLASSES = 3
BASE_FILTERS = 16
BATCH_SIZE = 2          # per GPU, 3D patches are big
LEARNING_RATE = 2e-4    # for a single GPU
EPOCHS = 100
DATA_DIR = "data/brats_patches"
OUT_DIR = "results/unet3d"
