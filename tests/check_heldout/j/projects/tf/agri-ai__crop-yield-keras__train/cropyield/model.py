from tensorflow import keras


def build_model(n_features, hidden=(256, 128, 64), dropout=0.2):
    inp = keras.Input(shape=(n_features,))
    x = inp
    for h in hidden:
        x = keras.layers.Dense(h, activation="gelu")(x)
        x = keras.layers.Dropout(dropout)(x)
    out = keras.layers.Dense(1)(x)
    return keras.Model(inp, out, name="yield_mlp")
