import os

import tensorflow as tf
import horovod.tensorflow.keras as hvd


def select(kind="auto"):
    """Initialise Horovod and bind this process to a device chosen at run time.

    kind: 'auto' -> the local rank's GPU if the node has GPUs, else CPU; 'gpu'; 'cpu'.
    Returns the device string used for logging.
    """
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if kind == "cpu" or (kind == "auto" and not gpus):
        tf.config.set_visible_devices([], "GPU")
        threads = max(1, (os.cpu_count() or 1) // hvd.local_size())
        tf.config.threading.set_intra_op_parallelism_threads(threads)
        return f"cpu x{threads}"
    if not gpus:
        raise RuntimeError("--device gpu requested but no GPU is visible")
    gpu = gpus[hvd.local_rank() % len(gpus)]
    tf.config.experimental.set_memory_growth(gpu, True)
    tf.config.set_visible_devices(gpu, "GPU")
    return gpu.name
