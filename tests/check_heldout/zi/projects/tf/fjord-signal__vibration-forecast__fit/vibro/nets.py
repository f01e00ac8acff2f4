import keras
from keras import layers


def tcn_forecaster(window, horizon, channels=3, filters=64, dilations=(1, 2, 4, 8, 16, 32)):
    inp = keras.Input((window, channels))
    x = inp
    for d in dilations:
        h = layers.Conv1D(filters, 3, padding="causal", dilation_rate=d, activation="relu")(x)
        h = layers.Conv1D(filters, 3, padding="causal", dilation_rate=d)(h)
        skip = x if x.shape[-1] == filters else layers.Conv1D(filters, 1)(x)
        x = layers.Activation("relu")(layers.Add()([h, skip]))
    x = layers.Lambda(lambda t: t[:, -1])(x)
    x = layers.Dense(horizon * channels, dtype="float32")(x)
    return keras.Model(inp, layers.Reshape((horizon, channels))(x))
