import os
import random

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


def setup_devices(local_rank):
    """One GPU per rank; CPU threads from the Slurm allocation."""
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.set_visible_devices(gpus[local_rank % len(gpus)], "GPU")
    cpus = int(os.environ.get("SLURM_CPUS_PER_TASK", "0"))
    if cpus:
        tf.config.threading.set_intra_op_parallelism_threads(cpus)


def seed_everything(seed):
    # different stream per rank so that shuffling/augmentation is not identical everywhere
    s = seed + hvd.rank()
    random.seed(s)
    np.random.seed(s)
    tf.random.set_seed(s)
