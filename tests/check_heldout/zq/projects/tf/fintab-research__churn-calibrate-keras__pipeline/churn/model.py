import keras
from keras import layers


def build_model(n_features, n_classes=2):
    inp = keras.Input((n_features,))
    x = layers.Dense(128, activation="gelu")(inp)
    x = layers.Dropout(0.2)(x)
    x = layers.Dense(64, activation="gelu")(x)
    return keras.Model(inp, layers.Dense(n_classes)(x), name="churn_mlp")
