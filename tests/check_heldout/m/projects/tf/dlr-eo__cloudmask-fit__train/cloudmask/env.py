import tensorflow as tf


def setup_gpus():
    """Avoid grabbing all GPU memory up front (several workers share a node)."""
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    return len(gpus)
