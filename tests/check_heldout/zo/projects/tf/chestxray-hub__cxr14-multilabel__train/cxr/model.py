import keras
from keras import layers


def dense_block(x, n_layers, growth):
    for _ in range(n_layers):
        y = layers.BatchNormalization()(x)
        y = layers.Activation("relu")(y)
        y = layers.Conv2D(growth, 3, padding="same", use_bias=False)(y)
        x = layers.Concatenate()([x, y])
    return x


def build_densenet_lite(size=256, n_labels=14, growth=16, blocks=(4, 6, 8, 6)):
    inp = keras.Input((size, size, 3))
    x = layers.Conv2D(2 * growth, 7, strides=2, padding="same", use_bias=False)(inp)
    x = layers.MaxPool2D(3, strides=2, padding="same")(x)
    for i, n in enumerate(blocks):
        x = dense_block(x, n, growth)
        if i < len(blocks) - 1:
            x = layers.Conv2D(x.shape[-1] // 2, 1, use_bias=False)(x)
            x = layers.AveragePooling2D(2)(x)
    x = layers.GlobalAveragePooling2D()(layers.Activation("relu")(layers.BatchNormalization()(x)))
    return keras.Model(inp, layers.Dense(n_labels)(x), name="densenet_lite")
