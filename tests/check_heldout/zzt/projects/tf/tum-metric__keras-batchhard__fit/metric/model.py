import keras
import tensorflow as tf
from keras import layers


def embedding_model(input_shape, dim):
    base = keras.Sequential([
        keras.Input(input_shape),
        layers.Conv2D(32, 3, activation="relu", padding="same"), layers.MaxPool2D(),
        layers.Conv2D(64, 3, activation="relu", padding="same"), layers.MaxPool2D(),
        layers.Conv2D(128, 3, activation="relu", padding="same"), layers.GlobalAveragePooling2D(),
        layers.Dense(dim),
        layers.UnitNormalization(),
    ])
    return base


def batch_hard_triplet(margin):
    def loss(y_true, emb):
        y = tf.reshape(tf.cast(y_true, tf.int32), [-1])
        dot = tf.matmul(emb, emb, transpose_b=True)
        d = tf.sqrt(tf.maximum(2.0 - 2.0 * dot, 1e-12))
        same = tf.cast(tf.equal(y[:, None], y[None, :]), d.dtype)
        hardest_pos = tf.reduce_max(d * same, axis=1)
        hardest_neg = tf.reduce_min(d + 1e6 * same, axis=1)
        return tf.nn.relu(hardest_pos - hardest_neg + margin)
    return loss
