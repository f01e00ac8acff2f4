"""process-level horovod info, importable from anywhere in the package"""
import tensorflow as tf
import horovod.tensorflow as hvd

RANK = hvd.rank()
WORLD_SIZE = hvd.size()
LOCAL_RANK = hvd.local_rank()


def pin_gpu():
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[LOCAL_RANK], "GPU")


def is_master():
    return RANK == 0


def allreduce_mean(x, name):
    return float(hvd.allreduce(tf.constant(x, tf.float32), op=hvd.Average, name=name))
