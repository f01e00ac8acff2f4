import tensorflow as tf
import horovod.tensorflow.keras as hvd


def setup_horovod():
    """Start Horovod and give this process one GPU (or a share of the CPU cores)."""
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    else:
        tf.config.threading.set_intra_op_parallelism_threads(2)
    return hvd.rank(), hvd.size()
