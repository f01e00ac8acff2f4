import os

import tensorflow as tf


class CheckpointHelper:
    """Keeps the last `max_to_keep` training checkpoints of model + optimizer in `model_dir`."""

    def __init__(self, model, optimizer, model_dir, max_to_keep=3):
        self.ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer, epoch=tf.Variable(0))
        self.manager = tf.train.CheckpointManager(self.ckpt, os.path.join(model_dir, "ckpt"),
                                                  max_to_keep=max_to_keep)

    def save(self, epoch):
        self.ckpt.epoch.assign(epoch)
        return self.manager.save(checkpoint_number=epoch)
