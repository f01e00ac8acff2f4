import os

import tensorflow as tf


class Checkpointer:
    """Thin wrapper around tf.train.CheckpointManager that also remembers the best validation error."""

    def __init__(self, directory, model, optimizer, keep=3):
        os.makedirs(directory, exist_ok=True)
        self.best = tf.Variable(float("inf"), trainable=False, name="best_val")
        self.epoch = tf.Variable(0, trainable=False, dtype=tf.int64, name="epoch")
        self.ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer, best=self.best, epoch=self.epoch)
        self.manager = tf.train.CheckpointManager(self.ckpt, directory, max_to_keep=keep)

    def restore(self):
        if self.manager.latest_checkpoint:
            self.ckpt.restore(self.manager.latest_checkpoint)
        return int(self.epoch.numpy())

    def save(self, epoch, val_err):
        self.epoch.assign(epoch + 1)
        if val_err < float(self.best.numpy()):
            self.best.assign(val_err)
        return self.manager.save(checkpoint_number=epoch)
