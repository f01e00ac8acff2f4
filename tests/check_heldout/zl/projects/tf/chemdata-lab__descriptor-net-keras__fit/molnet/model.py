import keras
from keras import layers


def build_mlp(n_in, hidden=(512, 256, 128), dropout=0.1):
    inp = keras.Input(shape=(n_in,), name="soap")
    x = inp
    for h in hidden:
        x = layers.Dense(h, activation="swish", kernel_initializer="he_normal")(x)
        x = layers.LayerNormalization()(x)
        x = layers.Dropout(dropout)(x)
    out = layers.Dense(1, name="gap")(x)
    return keras.Model(inp, out)
