import os

import tensorflow as tf


class CheckpointHelper:
    """Thin wrapper over tf.train.CheckpointManager that also tracks the epoch."""

    def __init__(self, workdir, **trackables):
        self.epoch = tf.Variable(0, dtype=tf.int64, trainable=False)
        self.ckpt = tf.train.Checkpoint(epoch=self.epoch, **trackables)
        self.manager = tf.train.CheckpointManager(
            self.ckpt, os.path.join(workdir, "ckpt"), max_to_keep=5)

    def restore_latest(self):
        if self.manager.latest_checkpoint:
            self.ckpt.restore(self.manager.latest_checkpoint)
        return int(self.epoch.numpy())

    def save(self, epoch):
        self.epoch.assign(epoch)
        return self.manager.save(checkpoint_number=epoch)
