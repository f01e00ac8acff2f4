import tensorflow as tf
import horovod.tensorflow as hvd


class DistributedMAE(object):
    def __init__(self):
        self.err = 0.0
        self.n = 0

    def update(self, pred, y):
        self.err += float(tf.reduce_sum(tf.abs(pred - y)))
        self.n += int(tf.size(y))

    def result(self):
        tot = hvd.allreduce(tf.constant([self.err, float(self.n)], tf.float64), op=hvd.Sum, name="mae")
        return float(tot[0] / tot[1])
