"""Experiment settings (edit here, not on the command line)."""
import os

DATA_DIR = os.environ.get("MHTAB_DATA", "data/customers")
TRAIN_CSV = os.path.join(DATA_DIR, "train.csv")
VALID_CSV = os.path.join(DATA_DIR, "valid.csv")
RUN_DIR = os.environ.get("MHTAB_RUN", "runs/multihead")

NUM_FEATURES = 48
NUM_CATEGORIES = 20

BATCH_SIZE = 512            # per worker
EPOCHS = 25
LEARNING_RATE = 2e-3
LOSS_WEIGHTS = {"churn": 1.0, "spend": 0.3, "category": 0.5}
