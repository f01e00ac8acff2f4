import os
import random

import numpy as np
import tensorflow as tf


def seed_everything(seed):
    os.environ["PYTHONHASHSEED"] = str(seed)
    random.seed(seed)
    np.random.seed(seed)
    tf.random.set_seed(seed)


class CheckpointKeeper:
    def __init__(self, directory, is_chief, **objs):
        self.step = tf.Variable(0, dtype=tf.int64)
        self.ckpt = tf.train.Checkpoint(step=self.step, **objs)
        self.manager = tf.train.CheckpointManager(self.ckpt, directory, max_to_keep=5)
        self.is_chief = is_chief

    def restore(self):
        if self.manager.latest_checkpoint:
            self.ckpt.restore(self.manager.latest_checkpoint)
        return int(self.step.numpy())

    def save(self, epoch):
        self.step.assign(epoch)
        if self.is_chief:
            self.manager.save()
