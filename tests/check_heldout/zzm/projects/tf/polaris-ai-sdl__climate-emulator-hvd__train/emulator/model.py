import keras
from keras import layers


def build_emulator(history, horizon, n_features, width=128, kernel=5):
    inp = keras.Input((history, n_features))
    x = layers.Conv1D(width, kernel, padding="causal", activation="relu")(inp)
    x = layers.Conv1D(width, kernel, padding="causal", dilation_rate=2, activation="relu")(x)
    x = layers.LSTM(width)(x)
    x = layers.Dense(horizon * n_features)(x)
    out = layers.Reshape((horizon, n_features))(x)
    return keras.Model(inp, out, name="emulator")
