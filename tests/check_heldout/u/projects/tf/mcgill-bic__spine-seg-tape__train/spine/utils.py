import os
import random

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    tf.random.set_seed(seed)
    os.environ["PYTHONHASHSEED"] = str(seed)


def is_chief():
    return hvd.rank() == 0


def log(*msg):
    if is_chief():
        print(*msg, flush=True)
