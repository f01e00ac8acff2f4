import tensorflow as tf
import horovod.tensorflow as hvd


def evaluate(model, dataset, loss_fn):
    tot = tf.zeros(3, tf.float64)
    for x, y in dataset:
        logits = model(x, training=False)
        loss = loss_fn(y, logits) * tf.cast(tf.size(y), tf.float32)  # loss_fn returns the batch mean
        hit = tf.reduce_sum(tf.cast(tf.argmax(logits, 1, output_type=tf.int32) == y, tf.float32))
        tot += tf.cast(tf.stack([loss, hit, tf.cast(tf.size(y), tf.float32)]), tf.float64)
    tot = hvd.allreduce(tot, op=hvd.Sum, name="eval_sums")
    return float(tot[0] / tot[2]), float(tot[1] / tot[2])
