import tensorflow as tf


class Checkpointer:
    """Keeps the last three checkpoints of one forecaster."""

    def __init__(self, directory, model, optimizer, keep=3):
        self.ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer)
        self.manager = tf.train.CheckpointManager(self.ckpt, directory, max_to_keep=keep)

    def save(self, epoch):
        return self.manager.save(checkpoint_number=epoch)

    def restore_latest(self):
        if self.manager.latest_checkpoint:
            self.ckpt.restore(self.manager.latest_checkpoint)
            return True
        return False
