import logging
import os
import random

import numpy as np
import tensorflow as tf


def seed_everything(seed):
    os.environ["PYTHONHASHSEED"] = str(seed)
    random.seed(seed)
    np.random.seed(seed)
    tf.random.set_seed(seed)


def get_logger(rank):
    logger = logging.getLogger("cropnet")
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s [rank {}] %(message)s".format(rank)))
    logger.addHandler(handler)
    logger.setLevel(logging.INFO if rank == 0 else logging.WARNING)
    return logger
