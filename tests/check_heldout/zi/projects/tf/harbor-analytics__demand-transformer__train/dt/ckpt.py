import os

import tensorflow as tf


class BestKeeper:
    """Keeps `last` and `best` checkpoints; construct it on the chief only."""

    def __init__(self, model, optimizer, directory):
        self.ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer, epoch=tf.Variable(0))
        self.last = tf.train.CheckpointManager(self.ckpt, os.path.join(directory, "last"), max_to_keep=2)
        self.best = tf.train.CheckpointManager(self.ckpt, os.path.join(directory, "best"), max_to_keep=1)
        self.best_value = float("inf")

    def update(self, epoch, value):
        self.ckpt.epoch.assign(epoch)
        self.last.save()
        if value < self.best_value:
            self.best_value = value
            self.best.save()
            return True
        return False
