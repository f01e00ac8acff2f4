import tensorflow as tf
import horovod.tensorflow as hvd


def global_accuracy(correct, total):
    """Overall accuracy over every worker's shard of the test set."""
    t = hvd.allreduce(tf.constant([correct, total], tf.float64), op=hvd.Sum, name="acc_counts")
    return float(t[0] / tf.maximum(t[1], 1.0))


def mean_class_accuracy(per_class_correct, per_class_total):
    c = hvd.allreduce(tf.constant(per_class_correct, tf.float64), op=hvd.Sum, name="cls_correct")
    n = hvd.allreduce(tf.constant(per_class_total, tf.float64), op=hvd.Sum, name="cls_total")
    return float(tf.reduce_mean(c / tf.maximum(n, 1.0)))
