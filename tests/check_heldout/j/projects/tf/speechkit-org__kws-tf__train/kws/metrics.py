import tensorflow as tf

from kws.hvd_compat import hvd


class StreamingAccuracy:
    """Counts on this worker; ``result_global`` sums the counts of all workers."""

    def __init__(self, name):
        self.name = name
        self.correct = tf.Variable(0.0, dtype=tf.float64, trainable=False)
        self.seen = tf.Variable(0.0, dtype=tf.float64, trainable=False)
        self.loss_sum = tf.Variable(0.0, dtype=tf.float64, trainable=False)

    def reset(self):
        for v in (self.correct, self.seen, self.loss_sum):
            v.assign(0.0)

    def update(self, labels, logits, loss):
        n = tf.cast(tf.shape(labels)[0], tf.float64)
        hits = tf.cast(tf.equal(tf.argmax(logits, -1, output_type=tf.int32), tf.cast(labels, tf.int32)), tf.float64)
        self.correct.assign_add(tf.reduce_sum(hits))
        self.seen.assign_add(n)
        self.loss_sum.assign_add(tf.cast(loss, tf.float64) * n)

    def result_global(self):
        totals = hvd.allreduce(tf.stack([self.correct, self.seen, self.loss_sum]), op=hvd.Sum,
                               name=self.name + "_totals")
        return {"acc": float(totals[0] / totals[1]), "loss": float(totals[2] / totals[1])}
