import os
import random

import numpy as np


def seed_everything(seed):
    """Same seed on every replica: identical fold split and init (the broadcast makes init moot anyway)."""
    os.environ["PYTHONHASHSEED"] = str(seed)
    random.seed(seed)
    np.random.seed(seed)
    import tensorflow as tf
    tf.random.set_seed(seed)


def class_balance(y):
    pos = float(np.mean(y))
    return {0: 0.5 / (1.0 - pos), 1: 0.5 / pos} if 0.0 < pos < 1.0 else None
