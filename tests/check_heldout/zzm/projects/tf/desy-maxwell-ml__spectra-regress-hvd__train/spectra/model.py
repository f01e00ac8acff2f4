import keras
from keras import layers


def spectra_net(n_bins, n_params, filters=(32, 64, 128), dense=256):
    inp = keras.Input((n_bins,))
    x = layers.Reshape((n_bins, 1))(inp)
    for f in filters:
        x = layers.Conv1D(f, 7, padding="same", activation="relu")(x)
        x = layers.Conv1D(f, 7, padding="same", activation="relu")(x)
        x = layers.MaxPooling1D(2)(x)
    x = layers.GlobalAveragePooling1D()(x)
    x = layers.Dense(dense, activation="relu")(x)
    out = layers.Dense(n_params)(x)
    return keras.Model(inp, out, name="spectra_net")
