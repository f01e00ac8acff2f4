import os
import random
import time

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


def set_seed(seed, per_worker=True):
    """Seeds python/numpy/TF; with per_worker the seed is offset by the worker rank so that
    augmentation and shuffling differ between workers."""
    if per_worker:
        seed = seed + hvd.rank()
    random.seed(seed)
    np.random.seed(seed)
    tf.random.set_seed(seed)
    os.environ["PYTHONHASHSEED"] = str(seed)
    return seed


def configure_gpus(memory_growth=True):
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, memory_growth)
    return gpus


class AverageMeter:
    def __init__(self):
        self.reset()

    def reset(self):
        self.sum, self.count, self.t0 = 0.0, 0, time.time()

    def update(self, v, n=1):
        self.sum += float(v) * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)

    def rate(self):
        return self.count / max(time.time() - self.t0, 1e-6)
