import os

import numpy as np
import tensorflow as tf


class RoundSaver(object):
    """saves weights + labeled/pool split after every round"""

    def __init__(self, out):
        self.out = out
        os.makedirs(out, exist_ok=True)

    def save(self, rnd, model, labeled_idx, pool_idx):
        ckpt = tf.train.Checkpoint(model=model)
        ckpt.write(os.path.join(self.out, "round_%02d" % rnd, "ckpt"))
        np.save(os.path.join(self.out, "labeled_%02d.npy" % rnd), labeled_idx)
        np.save(os.path.join(self.out, "pool_%02d.npy" % rnd), pool_idx)
