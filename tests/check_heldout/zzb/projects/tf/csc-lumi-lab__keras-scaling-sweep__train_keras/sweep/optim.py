import tensorflow as tf
import horovod.tensorflow.keras as hvd


def make_optimizer(cfg):
    """Adam wrapped for Horovod; the warm-up callback ramps the lr in the first epochs."""
    opt = tf.keras.optimizers.Adam(learning_rate=cfg.lr)
    return hvd.DistributedOptimizer(opt)
