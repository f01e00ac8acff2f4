import keras
import horovod.keras as hvd


def scaled_learning_rate(base_lr):
    """The global batch grows with the number of GPUs; scale the lr with it."""
    return base_lr * hvd.local_size()


def make_optimizer(cfg):
    return keras.optimizers.Adam(learning_rate=scaled_learning_rate(cfg["base_lr"]), clipnorm=1.0)
