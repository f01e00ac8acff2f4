from tensorflow import keras
from tensorflow.keras import layers


def ds_cnn(num_classes, width=64, blocks=4, input_shape=(98, 40, 1)):
    """Depthwise-separable CNN from "Hello Edge" (Zhang et al., 2017)."""
    inp = keras.Input(input_shape)
    x = layers.Conv2D(width, (10, 4), strides=(2, 2), padding="same", use_bias=False)(inp)
    x = layers.ReLU()(layers.BatchNormalization()(x))
    for _ in range(blocks):
        x = layers.DepthwiseConv2D(3, padding="same", use_bias=False)(x)
        x = layers.ReLU()(layers.BatchNormalization()(x))
        x = layers.Conv2D(width, 1, use_bias=False)(x)
        x = layers.ReLU()(layers.BatchNormalization()(x))
    x = layers.GlobalAveragePooling2D()(layers.Dropout(0.2)(x))
    return keras.Model(inp, layers.Dense(num_classes)(x), name="ds_cnn")
