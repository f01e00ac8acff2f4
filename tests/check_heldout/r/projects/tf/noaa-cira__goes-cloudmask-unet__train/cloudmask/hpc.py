"""Node set-up for the Casper/Derecho GPU nodes."""
import os

import tensorflow as tf


def configure(local_rank, threads=8):
    os.environ.setdefault("TF_GPU_THREAD_MODE", "gpu_private")
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.experimental.set_memory_growth(gpus[local_rank], True)
        tf.config.set_visible_devices(gpus[local_rank], "GPU")
    tf.config.threading.set_intra_op_parallelism_threads(threads)
    tf.config.threading.set_inter_op_parallelism_threads(2)
