import tensorflow as tf
import keras
from keras import layers


def make_encoder(window, channels, width=64):
    return keras.Sequential([
        keras.Input((window, channels)),
        layers.Conv1D(width, 7, padding="same", activation="gelu"),
        layers.Conv1D(width, 5, strides=2, padding="same", activation="gelu"),
        layers.Conv1D(2 * width, 3, strides=2, padding="same", activation="gelu"),
        layers.GlobalAveragePooling1D(),
    ], name="encoder")


def make_projector(dim=64):
    return keras.Sequential([layers.Dense(128, activation="relu"), layers.Dense(dim)], name="projector")


def info_nce(z1, z2, tau=0.1):
    z1 = tf.math.l2_normalize(z1, 1)
    z2 = tf.math.l2_normalize(z2, 1)
    logits = tf.matmul(z1, z2, transpose_b=True) / tau
    labels = tf.range(tf.shape(z1)[0])
    l1 = keras.losses.sparse_categorical_crossentropy(labels, logits, from_logits=True)
    l2 = keras.losses.sparse_categorical_crossentropy(labels, tf.transpose(logits), from_logits=True)
    return tf.reduce_mean(l1 + l2) / 2
