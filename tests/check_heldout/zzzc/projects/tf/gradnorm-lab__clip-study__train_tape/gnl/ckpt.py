import tensorflow as tf
import horovod.tensorflow as hvd


class RootCheckpoint:
    def __init__(self, directory, **objs):
        self.ckpt = tf.train.Checkpoint(**objs)
        self.manager = tf.train.CheckpointManager(self.ckpt, directory, max_to_keep=2) if hvd.rank() == 0 else None

    def save(self, epoch):
        if self.manager is not None:
            return self.manager.save(checkpoint_number=epoch)
