import tensorflow as tf

from .hvd_utils import is_chief


class ChiefCheckpoint:
    """tf.train.CheckpointManager that only exists on rank 0."""

    def __init__(self, directory, max_to_keep=3, **objects):
        self.ckpt = tf.train.Checkpoint(**objects)
        self.manager = tf.train.CheckpointManager(self.ckpt, directory, max_to_keep) if is_chief() else None

    def restore_latest(self):
        if self.manager is not None and self.manager.latest_checkpoint:
            self.ckpt.restore(self.manager.latest_checkpoint)
            return self.manager.latest_checkpoint
        return None

    def save(self, step):
        if self.manager is not None:
            return self.manager.save(checkpoint_number=step)
        return None
