import keras
from keras import layers


def small_effnet_like(img_size, n_classes, width=32):
    inp = keras.Input((img_size, img_size, 3))
    x = layers.Conv2D(width, 3, strides=2, padding="same", activation="swish")(inp)
    for i, w in enumerate([width, 2 * width, 4 * width, 4 * width]):
        x = layers.DepthwiseConv2D(3, strides=2 if i else 1, padding="same", activation="swish")(x)
        x = layers.BatchNormalization()(x)
        x = layers.Conv2D(w, 1, activation="swish")(x)
    x = layers.GlobalAveragePooling2D()(x)
    # multi-label: a leaf can have several diseases
    return keras.Model(inp, layers.Dense(n_classes)(layers.Dropout(0.2)(x)))
