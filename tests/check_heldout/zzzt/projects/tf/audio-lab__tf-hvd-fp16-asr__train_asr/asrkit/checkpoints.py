import os

import tensorflow as tf
import horovod.tensorflow as hvd


class RankZeroCheckpointer:
    def __init__(self, exp_dir, model, optimizer, keep=5):
        self.ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer)
        self.manager = None
        if hvd.rank() == 0:
            os.makedirs(exp_dir, exist_ok=True)
            self.manager = tf.train.CheckpointManager(self.ckpt, exp_dir, max_to_keep=keep)

    def save(self, step):
        if self.manager is not None:
            return self.manager.save(checkpoint_number=step)
