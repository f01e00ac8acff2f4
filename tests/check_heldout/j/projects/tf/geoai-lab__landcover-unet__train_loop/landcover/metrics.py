import tensorflow as tf
import horovod.tensorflow as hvd


class ConfusionCounter:
    def __init__(self, num_classes):
        self.n = num_classes
        self.cm = tf.Variable(tf.zeros((num_classes, num_classes), tf.float64), trainable=False)

    def update(self, mask, logits):
        pred = tf.argmax(logits, -1, output_type=tf.int32)
        self.cm.assign_add(tf.math.confusion_matrix(tf.reshape(mask, [-1]), tf.reshape(pred, [-1]),
                                                    num_classes=self.n, dtype=tf.float64))

    def global_miou(self):
        cm = hvd.allreduce(self.cm, op=hvd.Sum, name="confusion")
        inter = tf.linalg.diag_part(cm)
        union = tf.reduce_sum(cm, 0) + tf.reduce_sum(cm, 1) - inter
        return float(tf.reduce_mean(inter / tf.maximum(union, 1.0)))


def global_mean(value, name):
    return float(hvd.allreduce(tf.constant(value, tf.float32), op=hvd.Average, name=name))
