import tensorflow as tf
import horovod.tensorflow as hvd


def weighted_sse(pred, target, lat_w):
    """Latitude-weighted sum of squared errors and the matching weight total for one batch."""
    w = tf.broadcast_to(lat_w[None, :, None], tf.shape(target))
    return tf.stack([tf.reduce_sum(w * tf.square(pred - target)), tf.reduce_sum(w)])


def global_rmse(local_totals):
    totals = hvd.allreduce(local_totals, op=hvd.Sum, name="rmse_totals")
    return float(tf.sqrt(totals[0] / totals[1]))
