import keras
import horovod.tensorflow.keras as hvd


def build_optimizer(cfg):
    """Adam wrapped for Horovod; gradients are averaged across workers."""
    opt = keras.optimizers.Adam(learning_rate=cfg["lr"], clipnorm=None)
    return hvd.DistributedOptimizer(opt)
