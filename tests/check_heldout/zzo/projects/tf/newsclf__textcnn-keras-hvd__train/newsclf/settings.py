# Default hyper-parameters for AG News; override with environment variables in the job script.
import os

DATA_DIR = os.environ.get("NEWSCLF_DATA", "data/ag_news")
MODEL_DIR = os.environ.get("NEWSCLF_OUT", "models/textcnn")
NUM_CLASSES = 4
VOCAB_SIZE = 40000
SEQ_LEN = 200
EMBED_DIM = 300
BATCH_SIZE = 128  # per worker
LEARNING_RATE = 1e-3
WARMUP_EPOCHS = 1
EPOCHS = 8
LABEL_SMOOTHING = 0.05
