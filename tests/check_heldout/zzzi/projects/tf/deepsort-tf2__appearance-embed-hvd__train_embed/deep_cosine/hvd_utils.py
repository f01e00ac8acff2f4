import tensorflow as tf
import horovod.tensorflow as hvd


def init_horovod():
    """Start Horovod and give this process its own GPU. Returns (rank, size)."""
    hvd.init()
    gpus = tf.config.list_physical_devices('GPU')
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], 'GPU')
    return hvd.rank(), hvd.size()


def global_mean(total, count, name):
    t = hvd.allreduce(tf.constant([float(total), float(count)]), op=hvd.Sum, name=name)
    return float(t[0] / t[1])
