import keras
from keras import layers


def concentration_net(input_shape, width=32):
    """Predicts sea-ice concentration (0..1 per pixel) from SAR + AMSR2 channels."""
    inp = keras.Input(input_shape)
    x = layers.Conv2D(width, 3, padding="same", activation="relu")(inp)
    x = layers.Conv2D(width, 3, padding="same", activation="relu")(x)
    skip = x
    x = layers.MaxPooling2D()(x)
    x = layers.Conv2D(2 * width, 3, padding="same", activation="relu")(x)
    x = layers.UpSampling2D()(x)
    x = layers.Concatenate()([x, skip])
    x = layers.Conv2D(width, 3, padding="same", activation="relu")(x)
    return keras.Model(inp, layers.Conv2D(1, 1, activation="sigmoid")(x))
