import tensorflow as tf

from kws.hvd_compat import hvd


class RankZeroCheckpointer:
    """Wraps a CheckpointManager; call ``save`` from every worker, only rank 0 writes."""

    def __init__(self, directory, max_to_keep=5, **trackables):
        self.ckpt = tf.train.Checkpoint(**trackables)
        self.manager = tf.train.CheckpointManager(self.ckpt, directory, max_to_keep=max_to_keep)

    def save(self, step):
        if hvd.rank() != 0:
            return None
        return self.manager.save(checkpoint_number=step)
