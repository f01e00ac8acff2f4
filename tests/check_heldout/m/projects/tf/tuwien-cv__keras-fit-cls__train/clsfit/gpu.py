import os

import tensorflow as tf


def configure_devices(local_rank, local_size):
    """Give each process on a node its own GPU; on a CPU host, split the cores instead.

    Must run before the first TensorFlow op touches a device.
    """
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        for g in gpus:
            tf.config.experimental.set_memory_growth(g, True)
        tf.config.set_visible_devices(gpus[local_rank % len(gpus)], "GPU")
        return "gpu"
    threads = max(1, (os.cpu_count() or 1) // local_size)
    tf.config.threading.set_intra_op_parallelism_threads(threads)
    tf.config.threading.set_inter_op_parallelism_threads(2)
    return "cpu"
