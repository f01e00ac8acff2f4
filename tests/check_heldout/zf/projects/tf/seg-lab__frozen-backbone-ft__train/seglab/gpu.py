import tensorflow as tf


def configure():
    """Grow GPU memory on demand instead of grabbing all of it at start-up.

    Returns the number of GPUs TensorFlow can see (logged by the caller)."""
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    return len(gpus)
