import os

import tensorflow as tf
import horovod.tensorflow as hvd


class RankZeroCheckpointer:
    def __init__(self, directory, max_to_keep=5, **objects):
        self.ckpt = tf.train.Checkpoint(**objects)
        self.manager = tf.train.CheckpointManager(self.ckpt, directory, max_to_keep=max_to_keep)

    def restore_latest(self):
        path = self.manager.latest_checkpoint
        if path:
            self.ckpt.restore(path).expect_partial()
        return path

    def save(self, step):
        if hvd.rank() != 0:
            return None
        os.makedirs(self.manager.directory, exist_ok=True)
        return self.manager.save(checkpoint_number=step)
