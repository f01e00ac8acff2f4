import os

import tensorflow as tf
import horovod.tensorflow as hvd


class ChiefCheckpointer:
    """Wraps tf.train.Checkpoint; only worker 0 ever writes."""

    def __init__(self, prefix, **objects):
        self.prefix = prefix
        self.ckpt = tf.train.Checkpoint(**objects)

    def save(self, epoch):
        if hvd.rank() != 0:
            return None
        os.makedirs(os.path.dirname(self.prefix), exist_ok=True)
        return self.ckpt.write(f"{self.prefix}-{epoch:03d}")
