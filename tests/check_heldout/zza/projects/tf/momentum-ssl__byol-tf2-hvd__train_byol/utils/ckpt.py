import os

import tensorflow as tf


class CheckpointSaver:
    """Thin wrapper around tf.train.CheckpointManager that also exports the encoder."""

    def __init__(self, out_dir, encoder, max_to_keep=5, **trackables):
        self.out_dir = out_dir
        self.encoder = encoder
        self.ckpt = tf.train.Checkpoint(encoder=encoder, **trackables)
        self.manager = tf.train.CheckpointManager(self.ckpt, os.path.join(out_dir, "ckpt"), max_to_keep)

    def restore_latest(self):
        if self.manager.latest_checkpoint:
            self.ckpt.restore(self.manager.latest_checkpoint)
            return True
        return False

    def save(self, epoch):
        path = self.manager.save(checkpoint_number=epoch)
        self.encoder.save_weights(os.path.join(self.out_dir, "encoder_last.weights.h5"))
        return path
