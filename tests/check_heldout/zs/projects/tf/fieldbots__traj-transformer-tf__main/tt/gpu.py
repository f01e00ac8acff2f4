import tensorflow as tf


def pin_gpu(index):
    """Make only GPU `index` visible to this process."""
    gpus = tf.config.list_physical_devices("GPU")
    if not gpus:
        return None
    tf.config.experimental.set_memory_growth(gpus[index], True)
    tf.config.set_visible_devices(gpus[index], "GPU")
    return gpus[index].name
