import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


def setup():
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def pooled_mae(abs_sum, count):
    """gather every worker's (sum, count) and pool them"""
    both = hvd.allgather(tf.constant([[abs_sum, count]], tf.float64), name="pooled_mae")
    tot = np.sum(both.numpy(), axis=0)
    return tot[0] / tot[1]
