import tensorflow as tf
import horovod.tensorflow as hvd


class Meter:
    def __init__(self):
        self.total, self.count = 0.0, 0

    def update(self, value, n=1):
        self.total += float(value) * n
        self.count += n

    @property
    def mean(self):
        return self.total / max(self.count, 1)


def global_accuracy(model, ds):
    """accuracy over the whole validation set: every worker scores its shard, counts are summed."""
    correct, seen = 0.0, 0.0
    for x, y in ds:
        pred = tf.argmax(model(x, training=False), axis=-1)
        correct += float(tf.reduce_sum(tf.cast(tf.equal(pred, y), tf.float32)))
        seen += float(tf.size(y))
    tot = hvd.allreduce(tf.constant([correct, seen], dtype=tf.float64), op=hvd.Sum, name="val_counts")
    return float(tot[0] / tot[1])
