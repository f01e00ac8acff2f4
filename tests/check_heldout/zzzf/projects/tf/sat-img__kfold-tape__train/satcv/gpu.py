import tensorflow as tf


def configure_gpus():
    """Grow GPU memory instead of grabbing all of it (several jobs share our nodes)."""
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    return len(gpus)
