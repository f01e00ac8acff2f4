"""Process-level setup shared by train.py and evaluate.py."""
import os
import random

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


def setup_horovod(seed=None):
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        # one GPU per process
        tf.config.set_visible_devices(gpus[hvd.rank()], "GPU")
        tf.config.experimental.set_memory_growth(gpus[hvd.rank()], True)
    if seed is not None:
        # different augmentations on every worker; weights are broadcast from rank 0 anyway
        seed = seed + hvd.rank()
        random.seed(seed)
        np.random.seed(seed)
        tf.random.set_seed(seed)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    return hvd.rank(), hvd.size()


def log(msg):
    if hvd.rank() == 0:
        print(msg, flush=True)
