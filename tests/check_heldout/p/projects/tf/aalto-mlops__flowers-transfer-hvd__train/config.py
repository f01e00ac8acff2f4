# flowers transfer-learning settings (ported from the Keras 2 / horovod.keras version)
DATA_DIR = "/data/flower_photos"
CLASSES = ["daisy", "dandelion", "roses", "sunflowers", "tulips"]
IMG_SIZE = 160
BATCH_SIZE = 32            # per worker
HEAD_LR = 1e-3             # single-worker value, scaled by the number of workers in train.py
HEAD_EPOCHS = 5
FINE_TUNE_LR = 1e-4        # single-worker value
FINE_TUNE_EPOCHS = 10
FINE_TUNE_AT = 100         # unfreeze backbone layers from this index on
WEIGHTS = "imagenet"
VAL_FRACTION = 0.2
