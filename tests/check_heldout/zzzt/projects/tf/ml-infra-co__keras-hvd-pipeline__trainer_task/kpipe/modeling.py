import keras


def wide_deep(num_features):
    inp = keras.Input((num_features,), name="features")
    deep = keras.layers.Dense(256, activation="relu")(inp)
    deep = keras.layers.Dropout(0.1)(deep)
    deep = keras.layers.Dense(128, activation="relu")(deep)
    wide = keras.layers.Dense(16)(inp)
    x = keras.layers.Concatenate()([wide, deep])
    out = keras.layers.Dense(1, activation="sigmoid", dtype="float32", name="prob")(x)
    return keras.Model(inp, out)
