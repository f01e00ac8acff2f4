# Experiment settings (edit here, not on the command line)
DATA_DIR = "/proj/polar/nsidc_sic_25km"
LOOKBACK = 12          # months of input
LEAD = 3               # forecast months
CROP = (432, 432)
BATCH_PER_GPU = 4
EPOCHS = 60
LR = 1e-4
LOSS_LAND_WEIGHT = 0.0
OUT_DIR = "experiments/convlstm_l12_f3"
