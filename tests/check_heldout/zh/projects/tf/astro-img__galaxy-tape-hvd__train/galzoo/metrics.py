import tensorflow as tf
import horovod.tensorflow as hvd


class GlobalRMSE:
    """RMSE over every example seen by every worker."""

    def __init__(self):
        self.reset()

    def reset(self):
        self.sq = tf.constant(0.0, tf.float64)
        self.n = tf.constant(0.0, tf.float64)

    def update(self, y_true, y_pred):
        self.sq += tf.reduce_sum(tf.cast(tf.square(y_true - y_pred), tf.float64))
        self.n += tf.cast(tf.size(y_true), tf.float64)

    def result(self):
        sq = hvd.allreduce(self.sq, op=hvd.Sum, name='rmse_sq')
        n = hvd.allreduce(self.n, op=hvd.Sum, name='rmse_n')
        return float(tf.sqrt(sq / n))
