import keras
import tensorflow as tf


class DiceScore(keras.metrics.Metric):
    def __init__(self, name="dice", threshold=0.5, **kw):
        super().__init__(name=name, **kw)
        self.threshold = threshold
        self.inter = self.add_weight(name="inter", initializer="zeros")
        self.denom = self.add_weight(name="denom", initializer="zeros")

    def update_state(self, y_true, y_logits, sample_weight=None):
        y_hat = tf.cast(tf.sigmoid(y_logits) > self.threshold, tf.float32)
        y_true = tf.cast(y_true, tf.float32)
        self.inter.assign_add(tf.reduce_sum(y_true * y_hat))
        self.denom.assign_add(tf.reduce_sum(y_true) + tf.reduce_sum(y_hat))

    def result(self):
        return tf.math.divide_no_nan(2.0 * self.inter, self.denom)

    def reset_state(self):
        self.inter.assign(0.0)
        self.denom.assign(0.0)


bce = keras.losses.BinaryCrossentropy(from_logits=True)
