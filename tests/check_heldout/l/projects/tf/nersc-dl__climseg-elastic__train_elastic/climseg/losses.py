"""Losses for the heavily imbalanced ClimateNet masks (~94% background)."""
import tensorflow as tf
from tensorflow import keras

# inverse-frequency weights for background, tropical cyclone, atmospheric river
CLASS_WEIGHTS = (0.05, 4.0, 1.0)


class WeightedJaccardCE(keras.losses.Loss):
    """Class-weighted cross entropy plus a soft Jaccard term on the two event classes."""

    def __init__(self, class_weights=CLASS_WEIGHTS, jaccard_weight=1.0, name="weighted_jaccard_ce"):
        super().__init__(name=name)
        self.class_weights = tf.constant(class_weights, tf.float32)
        self.jaccard_weight = jaccard_weight

    def call(self, y_true, y_pred):
        y_true = tf.cast(y_true, tf.int32)
        logits = tf.cast(y_pred, tf.float32)
        ce = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y_true, logits=logits)
        w = tf.gather(self.class_weights, y_true)
        ce = tf.reduce_sum(w * ce) / tf.reduce_sum(w)
        probs = tf.nn.softmax(logits)[..., 1:]
        onehot = tf.one_hot(y_true, 3)[..., 1:]
        inter = tf.reduce_sum(probs * onehot, axis=(1, 2))
        union = tf.reduce_sum(probs + onehot, axis=(1, 2)) - inter
        jaccard = 1.0 - tf.reduce_mean((inter + 1.0) / (union + 1.0))
        return ce + self.jaccard_weight * jaccard

    def get_config(self):
        return {"jaccard_weight": self.jaccard_weight, "name": self.name}
