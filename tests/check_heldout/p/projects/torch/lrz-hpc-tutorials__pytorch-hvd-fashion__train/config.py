# Settings for the LRZ "Horovod on the AI cluster" hands-on.
# GLOBAL_BATCH is fixed: each worker gets GLOBAL_BATCH // number of workers, so the
# optimisation problem (and the learning rate) does not change with the number of GPUs.
DATA_DIR = "/lrz/shared/datasets/fashion-mnist"
CKPT_DIR = "./ckpt"
GLOBAL_BATCH = 512
LR = 0.1
MOMENTUM = 0.9
WEIGHT_DECAY = 1e-4
EPOCHS = 15
VAL_FRACTION = 0.1
SPLIT_SEED = 1234
NUM_WORKERS = 2
