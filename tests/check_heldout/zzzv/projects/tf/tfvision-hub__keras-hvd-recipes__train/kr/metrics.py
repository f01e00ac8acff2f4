import keras
import tensorflow as tf


@keras.saving.register_keras_serializable(package="kr")
class MacroRecall(keras.metrics.Metric):
    """recall averaged over classes, from running per-class counts"""

    def __init__(self, num_classes, name="macro_recall", **kw):
        super().__init__(name=name, **kw)
        self.num_classes = num_classes
        self.tp = self.add_weight(name="tp", shape=(num_classes,), initializer="zeros")
        self.pos = self.add_weight(name="pos", shape=(num_classes,), initializer="zeros")

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true = tf.reshape(tf.cast(y_true, tf.int32), [-1])
        pred = tf.argmax(y_pred, axis=-1, output_type=tf.int32)
        hit = tf.cast(tf.equal(pred, y_true), tf.float32)
        self.tp.assign_add(tf.math.unsorted_segment_sum(hit, y_true, self.num_classes))
        self.pos.assign_add(tf.math.unsorted_segment_sum(tf.ones_like(hit), y_true, self.num_classes))

    def result(self):
        return tf.reduce_mean(tf.math.divide_no_nan(self.tp, self.pos))

    def reset_state(self):
        self.tp.assign(tf.zeros_like(self.tp))
        self.pos.assign(tf.zeros_like(self.pos))

    def get_config(self):
        return {**super().get_config(), "num_classes": self.num_classes}
