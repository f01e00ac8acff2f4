import keras
from keras import layers


def ctc_model(n_mels, hidden, n_layers, vocab):
    inp = keras.Input((None, n_mels))
    x = layers.Conv1D(hidden, 3, strides=2, padding="same", activation="relu")(inp)
    for _ in range(n_layers):
        x = layers.Bidirectional(layers.GRU(hidden // 2, return_sequences=True))(x)
    out = layers.Dense(vocab + 1, dtype="float32")(x)   # + blank
    return keras.Model(inp, out)
