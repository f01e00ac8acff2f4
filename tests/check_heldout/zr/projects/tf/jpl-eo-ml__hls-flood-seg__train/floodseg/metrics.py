import tensorflow as tf
import horovod.tensorflow as hvd


class WaterIoU:
    """Accumulates tp/fp/fn locally; result() sums them over all workers."""

    def __init__(self):
        self.c = tf.zeros(3, tf.float64)

    def update(self, y, logits):
        valid = y >= 0
        pred = tf.squeeze(logits, -1) > 0
        truth = y == 1
        f = lambda m: tf.reduce_sum(tf.cast(m & valid, tf.float64))
        self.c += tf.stack([f(pred & truth), f(pred & ~truth), f(~pred & truth)])

    def result(self):
        tp, fp, fn = tf.unstack(hvd.allreduce(self.c, op=hvd.Sum, name="iou_counts"))
        return float(tp / tf.maximum(tp + fp + fn, 1.0))
