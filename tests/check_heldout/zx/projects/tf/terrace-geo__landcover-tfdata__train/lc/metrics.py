import tensorflow as tf
import horovod.tensorflow as hvd


class ConfusionMatrix:
    def __init__(self, num_classes):
        self.n = num_classes
        self.mat = tf.zeros([num_classes, num_classes], tf.float64)

    def update(self, labels, preds):
        self.mat += tf.math.confusion_matrix(tf.reshape(labels, [-1]), tf.reshape(preds, [-1]),
                                             num_classes=self.n, dtype=tf.float64)

    def global_miou(self):
        mat = hvd.allreduce(self.mat, op=hvd.Sum, name="val_confusion")
        inter = tf.linalg.diag_part(mat)
        union = tf.reduce_sum(mat, 0) + tf.reduce_sum(mat, 1) - inter
        valid = union > 0
        return tf.reduce_mean(tf.boolean_mask(inter / tf.where(valid, union, 1.0), valid))
