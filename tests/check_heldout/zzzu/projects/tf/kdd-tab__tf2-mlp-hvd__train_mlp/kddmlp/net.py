import keras


def mlp(n_in, n_out, hidden="512,256", dropout=0.3):
    x = inp = keras.Input((n_in,))
    for h in [int(u) for u in hidden.split(",")]:
        x = keras.layers.Dense(h, activation="relu")(x)
        x = keras.layers.BatchNormalization()(x)
        x = keras.layers.Dropout(dropout)(x)
    return keras.Model(inp, keras.layers.Dense(n_out)(x))
