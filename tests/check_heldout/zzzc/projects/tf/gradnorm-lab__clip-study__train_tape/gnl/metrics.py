import tensorflow as tf
import horovod.tensorflow as hvd


class RunningMean:
    def __init__(self, name):
        self.name, self.total, self.count = name, 0.0, 0

    def update(self, value, n=1):
        self.total += float(value) * n
        self.count += n

    def result(self):
        both = hvd.allreduce(tf.constant([self.total, float(self.count)], tf.float64),
                             op=hvd.Sum, name=self.name)
        return float(both[0] / both[1])
