import tensorflow as tf
import horovod.tensorflow as hvd


def global_mae(abs_err_sum, count):
    """MAE over the whole validation set, gathered from all workers."""
    local = tf.constant(abs_err_sum / max(count, 1), tf.float32)
    return float(hvd.allreduce(local, op=hvd.Sum, name="val_mae"))
