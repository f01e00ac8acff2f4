import tensorflow as tf
import horovod.tensorflow as hvd


class GlobalMean(object):
    """mean over all workers' samples (sum and count allreduced)"""

    def __init__(self):
        self.s = 0.0
        self.n = 0.0

    def update(self, values):
        self.s += float(tf.reduce_sum(values))
        self.n += float(tf.size(values))

    def result(self):
        tot = hvd.allreduce(tf.constant([self.s, self.n], tf.float64), op=hvd.Sum, name="global_mean")
        return float(tot[0] / tf.maximum(tot[1], 1.0))
