import tensorflow as tf
import horovod.tensorflow as hvd


def setup(flags):
    """horovod init (only with --horovod) and one visible GPU per process"""
    if flags.horovod:
        hvd.init()
        local = hvd.local_rank()
    else:
        local = 0
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[local], "GPU")


def is_chief():
    return hvd.rank() == 0
