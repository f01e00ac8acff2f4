import os

import tensorflow as tf
import horovod.tensorflow as hvd


def setup_horovod(verbose=True):
    """Start Horovod and make TensorFlow share the node's GPUs politely."""
    hvd.init()
    for gpu in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(gpu, True)
    os.environ.setdefault("TF_GPU_THREAD_MODE", "gpu_private")
    if verbose and hvd.rank() == 0:
        print(f"horovod: {hvd.size()} workers, {len(tf.config.list_physical_devices('GPU'))} GPUs visible")
    return hvd.rank(), hvd.size()
