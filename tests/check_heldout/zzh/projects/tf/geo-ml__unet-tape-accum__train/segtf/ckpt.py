import tensorflow as tf
import horovod.tensorflow as hvd


class CheckpointHelper:
    """Every worker restores from the shared directory; only rank 0 writes to it."""

    def __init__(self, directory, keep, **objects):
        self.epoch = tf.Variable(0, dtype=tf.int64, trainable=False)
        self.ckpt = tf.train.Checkpoint(epoch=self.epoch, **objects)
        self.manager = tf.train.CheckpointManager(self.ckpt, directory, max_to_keep=keep)

    def restore_latest(self):
        path = self.manager.latest_checkpoint
        if path:
            self.ckpt.restore(path).expect_partial()
        return int(self.epoch.numpy()), path

    def save(self, epoch):
        self.epoch.assign(epoch)
        if hvd.rank() == 0:
            return self.manager.save(checkpoint_number=epoch)
        return None
