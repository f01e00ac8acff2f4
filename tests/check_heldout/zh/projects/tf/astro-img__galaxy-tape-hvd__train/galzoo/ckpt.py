import os

import tensorflow as tf
import horovod.tensorflow as hvd


class CheckpointSaver:
    """Keeps the last `keep` checkpoints; only the chief writes."""

    def __init__(self, model, optimizer, directory, keep=3):
        self.step = tf.Variable(0, dtype=tf.int64, trainable=False)
        self.ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer, step=self.step)
        self.manager = tf.train.CheckpointManager(self.ckpt, directory, max_to_keep=keep)

    def restore(self):
        if self.manager.latest_checkpoint:
            self.ckpt.restore(self.manager.latest_checkpoint)
        return int(self.step.numpy())

    def save(self, epoch):
        self.step.assign(epoch)
        if hvd.rank == 0:
            path = self.manager.save(checkpoint_number=epoch)
            print('checkpoint ->', os.path.basename(path))
