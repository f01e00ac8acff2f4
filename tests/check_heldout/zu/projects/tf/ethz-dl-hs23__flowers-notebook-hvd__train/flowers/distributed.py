import tensorflow as tf
import horovod.tensorflow.keras as hvd


def setup():
    """hvd.init + one GPU per process. Returns (rank, size)."""
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    return hvd.rank(), hvd.size()


def agree_on_int(value, name):
    """rank 0's value for everybody"""
    return int(hvd.broadcast(tf.constant(value, dtype=tf.int64), root_rank=0, name=name))


def average_list(values, name):
    return [float(hvd.allreduce(tf.constant(v, dtype=tf.float32), name=f"{name}_{i}"))
            for i, v in enumerate(values)]
