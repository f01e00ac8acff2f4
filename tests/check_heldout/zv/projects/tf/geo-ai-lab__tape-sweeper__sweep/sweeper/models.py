import keras
from keras import layers


def small_cnn(n_bands, n_classes):
    inp = keras.Input((64, 64, n_bands))
    x = inp
    for f in (32, 64, 128):
        x = layers.Conv2D(f, 3, padding="same", use_bias=False)(x)
        x = layers.BatchNormalization()(x)
        x = layers.Activation("relu")(x)
        x = layers.MaxPooling2D()(x)
    x = layers.GlobalAveragePooling2D()(x)
    return keras.Model(inp, layers.Dense(n_classes)(x), name="small_cnn")


def resnet_like(n_bands, n_classes):
    inp = keras.Input((64, 64, n_bands))
    x = layers.Conv2D(64, 3, padding="same", activation="relu")(inp)
    for _ in range(3):
        y = layers.Conv2D(64, 3, padding="same", activation="relu")(x)
        y = layers.Conv2D(64, 3, padding="same")(y)
        x = layers.Activation("relu")(layers.Add()([x, y]))
        x = layers.MaxPooling2D()(x)
    x = layers.GlobalAveragePooling2D()(x)
    return keras.Model(inp, layers.Dense(n_classes)(x), name="resnet_like")


ZOO = {"small_cnn": small_cnn, "resnet_like": resnet_like}
