import tensorflow as tf
import horovod.tensorflow as hvd


class Mean:
    """Running mean whose result is averaged over all workers."""

    def __init__(self, name):
        self.name, self.total, self.count = name, 0.0, 0

    def update(self, v, n=1):
        self.total += float(v) * n
        self.count += n

    def result(self):
        t = hvd.allreduce(tf.constant([self.total, float(self.count)], tf.float64), op=hvd.Sum,
                          name=self.name)
        return float(t[0] / tf.maximum(t[1], 1.0))
