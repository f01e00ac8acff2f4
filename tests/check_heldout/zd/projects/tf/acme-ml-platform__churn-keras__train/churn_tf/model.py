import keras


def build_model(n_features):
    inputs = keras.Input(shape=(n_features,))
    x = keras.layers.Dense(128, activation="relu")(inputs)
    x = keras.layers.Dropout(0.1)(x)
    x = keras.layers.Dense(64, activation="relu")(x)
    outputs = keras.layers.Dense(1)(x)
    return keras.Model(inputs, outputs, name="churn_mlp")
