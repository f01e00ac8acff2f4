import keras


def mlp(dim=32, classes=5, width=256, depth=3):
    inp = keras.Input((dim,))
    h = inp
    for _ in range(depth):
        h = keras.layers.Dense(width, activation="relu")(h)
    return keras.Model(inp, keras.layers.Dense(classes)(h))
