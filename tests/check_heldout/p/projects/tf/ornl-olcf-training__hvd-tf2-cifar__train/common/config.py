# Global (not per-GPU) batch size: it is split evenly over the workers, so the
# learning rate below is the one for this global batch and is not rescaled.
GLOBAL_BATCH_SIZE = 256
LEARNING_RATE = 0.05
MOMENTUM = 0.9
EPOCHS = 10
NUM_CLASSES = 10
CHECKPOINT_DIR = "./ckpt"
