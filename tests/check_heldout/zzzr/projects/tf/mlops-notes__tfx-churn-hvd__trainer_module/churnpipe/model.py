import keras


def build(n_in, hidden, dropout):
    inp = keras.Input((n_in,))
    h = inp
    for u in hidden:
        h = keras.layers.Dense(u, activation="relu")(h)
        h = keras.layers.Dropout(dropout)(h)
    out = keras.layers.Dense(1, activation="sigmoid")(h)
    return keras.Model(inp, out)
