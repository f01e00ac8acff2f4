import os

DATA_ROOT = os.environ.get("LEAK_DATA", "/data/hydrophones")
SAMPLE_RATE = 4000
WINDOW = 1024
BATCH_PER_WORKER = 32
BASE_LR = 5e-4
EPOCHS = 40
WARMUP_EPOCHS = 2
SEED = 7
RUN_DIR = "runs"
