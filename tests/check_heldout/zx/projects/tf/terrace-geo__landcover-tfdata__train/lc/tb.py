import tensorflow as tf
import horovod.tensorflow as hvd


class RankZeroWriter:
    """tf.summary writer that is a no-op on every rank but 0."""

    def __init__(self, logdir):
        self._writer = tf.summary.create_file_writer(logdir) if hvd.rank() == 0 else None

    def scalar(self, name, value, step):
        if self._writer is None:
            return
        with self._writer.as_default():
            tf.summary.scalar(name, value, step=step)
        self._writer.flush()
