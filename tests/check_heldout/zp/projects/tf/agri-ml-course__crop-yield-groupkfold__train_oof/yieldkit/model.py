import keras
from keras import layers


def mlp(n_in, width=128, depth=3, dropout=0.1):
    inp = keras.Input((n_in,))
    x = layers.Normalization(name="norm")(inp)
    for _ in range(depth):
        x = layers.Dense(width, activation="gelu")(x)
        x = layers.Dropout(dropout)(x)
    return keras.Model(inp, layers.Dense(1)(x))
