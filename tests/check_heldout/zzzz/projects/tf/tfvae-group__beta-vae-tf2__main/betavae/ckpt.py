import os
import tensorflow as tf


class Saver:
    def __init__(self, model, optimizer, step, directory, keep=3):
        self.ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer, step=step)
        self.manager = tf.train.CheckpointManager(self.ckpt, directory, max_to_keep=keep)

    def restore(self):
        if self.manager.latest_checkpoint:
            self.ckpt.restore(self.manager.latest_checkpoint)
            return True
        return False

    def save(self, step):
        path = self.manager.save(checkpoint_number=step)
        print("saved", path)
        return path
