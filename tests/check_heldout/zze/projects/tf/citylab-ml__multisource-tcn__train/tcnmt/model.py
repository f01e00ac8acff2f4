import keras
from keras import layers


def tcn_forecaster(history, n_sensors, horizons, channels=64, levels=4, kernel=3):
    inp = keras.Input((history, n_sensors))
    x = inp
    for i in range(levels):
        y = layers.Conv1D(channels, kernel, padding="causal", dilation_rate=2 ** i, activation="relu")(x)
        y = layers.Conv1D(channels, kernel, padding="causal", dilation_rate=2 ** i)(y)
        if x.shape[-1] != channels:
            x = layers.Conv1D(channels, 1)(x)
        x = layers.Activation("relu")(layers.Add()([x, y]))
    last = layers.Lambda(lambda t: t[:, -1])(x)
    outs = {f"h{h}": layers.Dense(n_sensors, name=f"h{h}")(last) for h in horizons}
    return keras.Model(inp, outs)
