import tensorflow as tf
import horovod.tensorflow as hvd


def init_horovod():
    hvd.init()
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    return hvd.rank(), hvd.size()


def rank0_print(*a):
    if hvd.rank() == 0:
        print(*a, flush=True)


def global_mean(total, count, name):
    """sum numerator and denominator over workers, then divide"""
    t = hvd.allreduce(tf.constant([total, count], tf.float64), op=hvd.Sum, name=name)
    return float(t[0] / t[1])
