import logging
import random

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


def set_seeds(seed):
    # offset by rank so each worker draws its own coordinate noise
    seed = seed + hvd.rank()
    random.seed(seed)
    np.random.seed(seed)
    tf.random.set_seed(seed)


def get_logger():
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    return logging.getLogger("schnet")
