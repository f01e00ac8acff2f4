from tensorflow import keras


def phase_cnn(n_samples, n_comp, n_classes=3, filters=(16, 32, 64, 64)):
    inp = keras.Input((n_samples, n_comp))
    h = inp
    for f in filters:
        h = keras.layers.Conv1D(f, 7, padding="same", activation="relu")(h)
        h = keras.layers.BatchNormalization()(h)
        h = keras.layers.MaxPooling1D(2)(h)
    h = keras.layers.GlobalMaxPooling1D()(h)
    h = keras.layers.Dense(64, activation="relu")(h)
    return keras.Model(inp, keras.layers.Dense(n_classes, activation="softmax")(h), name="phase_cnn")
