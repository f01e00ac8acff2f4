import keras
from keras import layers


def disc_regressor(image_size=224, width=32):
    """Small CNN that regresses the optic disc centre (normalised x, y)."""
    inp = keras.Input((image_size, image_size, 3))
    x = inp
    for i in range(5):
        x = layers.Conv2D(width * 2 ** min(i, 3), 3, strides=2, padding="same")(x)
        x = layers.BatchNormalization()(x)
        x = layers.ReLU()(x)
    x = layers.GlobalAveragePooling2D()(x)
    x = layers.Dense(128, activation="relu")(x)
    return keras.Model(inp, layers.Dense(2, activation="sigmoid")(x), name="disc_regressor")
