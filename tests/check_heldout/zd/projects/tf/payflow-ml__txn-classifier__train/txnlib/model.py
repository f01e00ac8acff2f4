import keras


def build_classifier(n_features, n_classes, hidden_units):
    inputs = keras.Input(shape=(n_features,), name="features")
    x = keras.layers.BatchNormalization()(inputs)
    for units in hidden_units:
        x = keras.layers.Dense(units, activation="gelu")(x)
        x = keras.layers.Dropout(0.2)(x)
    outputs = keras.layers.Dense(n_classes, activation="softmax")(x)
    return keras.Model(inputs, outputs, name="txn_classifier")
