import horovod.tensorflow as hvd
import tensorflow as tf


class Checkpointer:
    def __init__(self, directory, **objects):
        self.step = tf.Variable(0, dtype=tf.int64)
        self.ckpt = tf.train.Checkpoint(step=self.step, **objects)
        self.manager = tf.train.CheckpointManager(self.ckpt, directory, max_to_keep=5)

    def restore(self):
        # every rank reads the same files; rank 0's values are broadcast afterwards anyway
        if self.manager.latest_checkpoint:
            self.ckpt.restore(self.manager.latest_checkpoint).expect_partial()
        return int(self.step)

    def save(self, step):
        self.step.assign(step)
        if hvd.rank() == 0:
            self.manager.save(checkpoint_number=step)
