import tensorflow as tf


def confusion_counts(logits, mask, num_classes=2):
    pred = tf.argmax(logits, -1, output_type=tf.int32)
    cm = tf.math.confusion_matrix(tf.reshape(mask, [-1]), tf.reshape(pred, [-1]),
                                  num_classes=num_classes, dtype=tf.float64)
    return cm


def iou_from_confusion(cm):
    tp = tf.linalg.diag_part(cm)
    denom = tf.reduce_sum(cm, 0) + tf.reduce_sum(cm, 1) - tp
    return tf.reduce_mean(tf.math.divide_no_nan(tp, denom))
