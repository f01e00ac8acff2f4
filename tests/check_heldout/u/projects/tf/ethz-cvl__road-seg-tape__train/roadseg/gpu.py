import tensorflow as tf


def pin_gpu(local_rank):
    """One GPU per process; call after hvd.init() and before building anything."""
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[local_rank], "GPU")
    return len(gpus)
