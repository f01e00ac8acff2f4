# defaults for the 2.5-degree development runs; override on the command line
DATA_DIR = "/scratch2/BMC/gsd-hpcs/meshgnn/era5_ico5"
N_VARS = 8                 # z500, t850, u10, v10, t2m, msl, q700, tp6h
HIDDEN = 128
N_MP_STEPS = 4
BATCH_PER_RANK = 4
BASE_LR = 3e-4             # single-GPU value; scaled by the number of ranks in training.py
WARMUP_EPOCHS = 2
EPOCHS = 40
CKPT_DIR = "checkpoints"
