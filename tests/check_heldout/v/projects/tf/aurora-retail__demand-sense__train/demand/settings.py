"""Defaults for the weekly demand model; overridden from the command line in train.py."""
FEATURE_DIM = 64
NUM_STORES = 1200
STORE_EMBED = 12
BATCH_PER_WORKER = 256
LEARNING_RATE = 5e-4
EPOCHS = 15
STEPS_PER_EPOCH = 300
VAL_STEPS = 30
ARTIFACT_DIR = "/artifacts/demand-sense"
DATA_DIR = "/datasets/demand-sense/v12"
