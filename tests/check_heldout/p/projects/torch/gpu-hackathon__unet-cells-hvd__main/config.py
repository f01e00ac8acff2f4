"""Run configuration (edit here, not on the command line)."""
import horovod.torch as hvd

DATA_ROOT = "/scratch/hackathon/cells"
IMG_SIZE = 128
EPOCHS = 25
GLOBAL_BATCH = 64
# each rank gets its share of the global batch
BATCH_PER_RANK = GLOBAL_BATCH // hvd.size()
LR = 3e-4
BASE_CHANNELS = 32
CHECKPOINT = "unet_cells.pt"
