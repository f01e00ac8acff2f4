import tensorflow as tf
from tensorflow.keras import layers


def make_generator(noise_dim=100):
    return tf.keras.Sequential([
        layers.Input((noise_dim,)),
        layers.Dense(7 * 7 * 256, use_bias=False), layers.BatchNormalization(), layers.LeakyReLU(),
        layers.Reshape((7, 7, 256)),
        layers.Conv2DTranspose(128, 5, strides=1, padding="same", use_bias=False),
        layers.BatchNormalization(), layers.LeakyReLU(),
        layers.Conv2DTranspose(64, 5, strides=2, padding="same", use_bias=False),
        layers.BatchNormalization(), layers.LeakyReLU(),
        layers.Conv2DTranspose(1, 5, strides=2, padding="same", use_bias=False, activation="tanh"),
    ], name="generator")


def make_discriminator():
    return tf.keras.Sequential([
        layers.Input((28, 28, 1)),
        layers.Conv2D(64, 5, strides=2, padding="same"), layers.LeakyReLU(), layers.Dropout(0.3),
        layers.Conv2D(128, 5, strides=2, padding="same"), layers.LeakyReLU(), layers.Dropout(0.3),
        layers.Flatten(), layers.Dense(1),
    ], name="discriminator")
