import tensorflow as tf
import horovod.tensorflow as hvd


def setup():
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        mine = gpus[hvd.local_rank()]
        tf.config.experimental.set_memory_growth(mine, True)
        tf.config.set_visible_devices([mine], "GPU")
    return hvd.rank(), hvd.size()


def is_root():
    return hvd.rank() == 0


def global_sum(values, name):
    return hvd.allreduce(tf.constant(values, tf.float64), op=hvd.Sum, name=name).numpy()
