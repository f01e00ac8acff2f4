import random

import numpy as np
import tensorflow as tf
import horovod.tensorflow.keras as hvd


def set_seed(seed):
    # offset by rank so the augmentation streams differ between workers
    s = seed + hvd.rank()
    random.seed(s)
    np.random.seed(s)
    tf.random.set_seed(s)
