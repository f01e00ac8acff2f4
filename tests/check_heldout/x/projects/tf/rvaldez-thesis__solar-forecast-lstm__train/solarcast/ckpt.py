import tensorflow as tf


class Checkpointer:
    """tf.train.CheckpointManager wrapper; the epoch number is the checkpoint number."""

    def __init__(self, directory, model, optimizer, keep=3):
        self.ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer)
        self.manager = tf.train.CheckpointManager(self.ckpt, directory, max_to_keep=keep)

    def restore_latest(self):
        latest = self.manager.latest_checkpoint
        if latest is None:
            return 0
        self.ckpt.restore(latest)
        return int(latest.rsplit("-", 1)[-1]) + 1

    def save(self, epoch, final=False):
        path = self.manager.save(checkpoint_number=epoch)
        if final:
            print("final checkpoint:", path)
        return path
