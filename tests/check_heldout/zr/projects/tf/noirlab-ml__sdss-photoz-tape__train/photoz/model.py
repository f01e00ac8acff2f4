import keras
from keras import layers


def build_mlp(n_in, hidden, n_bins):
    """MLP with a softmax over redshift bins (PDF) -- point estimate = PDF mean."""
    inp = keras.Input((n_in,))
    x = inp
    for _ in range(4):
        x = layers.Dense(hidden, activation="gelu")(x)
        x = layers.LayerNormalization()(x)
    return keras.Model(inp, layers.Dense(n_bins)(x), name="photoz_mlp")
