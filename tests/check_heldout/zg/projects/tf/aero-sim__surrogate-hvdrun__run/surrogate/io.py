import os

import tensorflow as tf


class Checkpointer:
    """Thin wrapper over tf.train.CheckpointManager with resume support."""

    def __init__(self, directory, **trackables):
        os.makedirs(directory, exist_ok=True)
        self.ckpt = tf.train.Checkpoint(**trackables)
        self.manager = tf.train.CheckpointManager(self.ckpt, directory, max_to_keep=5)

    def restore_latest(self):
        path = self.manager.latest_checkpoint
        if path:
            self.ckpt.restore(path)
        return path

    def save(self, epoch):
        return self.manager.save(checkpoint_number=epoch)
