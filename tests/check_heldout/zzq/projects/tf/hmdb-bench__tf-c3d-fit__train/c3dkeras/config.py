# Experiment constants (edit here, not on the command line)
NUM_CLASSES = 51
CLIP_LEN = 8
CROP = 40
TRAIN_VIDEOS = 408
VAL_VIDEOS = 96
BATCH_PER_GPU = 6
BASE_LR = 3e-4
WARMUP_EPOCHS = 2
EPOCHS = 24
LR_DROP_EPOCHS = (16, 21)
EXPORT_DIR = "exported"
CKPT_DIR = "checkpoints"
