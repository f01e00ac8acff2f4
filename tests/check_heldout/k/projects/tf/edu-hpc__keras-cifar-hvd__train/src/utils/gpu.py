import tensorflow as tf


def configure_gpu(local_rank):
    """Make only this worker's GPU visible and let TensorFlow grow memory on it."""
    gpus = tf.config.list_physical_devices("GPU")
    if not gpus:
        print("No GPU found, running on CPU")
        return
    try:
        tf.config.set_visible_devices(gpus[local_rank], "GPU")
        tf.config.experimental.set_memory_growth(gpus[local_rank], True)
    except RuntimeError as err:
        # Visible devices must be set before GPUs have been initialized
        print(err)
