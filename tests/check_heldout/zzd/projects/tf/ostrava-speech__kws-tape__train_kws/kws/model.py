import tensorflow as tf
from tensorflow.keras import layers


def ds_cnn(n_classes=12, input_shape=(49, 40, 1), width=64):
    inp = tf.keras.Input(shape=input_shape)
    x = layers.Conv2D(width, (10, 4), strides=(2, 2), padding="same", use_bias=False)(inp)
    x = layers.BatchNormalization()(x)
    x = layers.ReLU()(x)
    for _ in range(4):
        x = layers.DepthwiseConv2D(3, padding="same", use_bias=False)(x)
        x = layers.BatchNormalization()(x)
        x = layers.ReLU()(x)
        x = layers.Conv2D(width, 1, use_bias=False)(x)
        x = layers.BatchNormalization()(x)
        x = layers.ReLU()(x)
    x = layers.GlobalAveragePooling2D()(x)
    return tf.keras.Model(inp, layers.Dense(n_classes)(x), name="ds_cnn")
