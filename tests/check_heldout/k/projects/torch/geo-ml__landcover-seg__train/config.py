"""Experiment constants for the land-cover segmentation run (edit here, not on the command line)."""
import horovod.torch as hvd

DATA_ROOT = "/lustre/projects/landcover/tiles_256"
CLASSES = ["background", "building", "road", "water", "barren", "forest", "agriculture"]
IN_CHANNELS = 4          # RGB + NIR
BATCH_PER_GPU = 16
GLOBAL_BATCH = BATCH_PER_GPU * hvd.size()
BASE_LR = 1e-3           # for a global batch of 64
LR = BASE_LR * GLOBAL_BATCH / 64
EPOCHS = 80
WEIGHT_DECAY = 1e-4
OUT_DIR = "checkpoints/landcover_unet"
