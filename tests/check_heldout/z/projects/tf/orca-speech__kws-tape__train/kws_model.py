import tensorflow as tf


def ds_cnn(n_classes=35, width=64, input_shape=(98, 40, 1)):
    """Depthwise-separable CNN from 'Hello Edge' (Zhang et al., 2017), small variant."""
    L = tf.keras.layers
    inp = tf.keras.Input(input_shape)
    x = L.Conv2D(width, (10, 4), strides=(2, 2), padding="same", use_bias=False)(inp)
    x = L.BatchNormalization()(x)
    x = L.ReLU()(x)
    for _ in range(4):
        x = L.DepthwiseConv2D(3, padding="same", use_bias=False)(x)
        x = L.BatchNormalization()(x)
        x = L.ReLU()(x)
        x = L.Conv2D(width, 1, use_bias=False)(x)
        x = L.BatchNormalization()(x)
        x = L.ReLU()(x)
    x = L.GlobalAveragePooling2D()(x)
    return tf.keras.Model(inp, L.Dense(n_classes)(x), name="ds_cnn")
