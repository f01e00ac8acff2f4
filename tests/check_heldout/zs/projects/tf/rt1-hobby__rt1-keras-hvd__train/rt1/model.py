import keras
from keras import layers


def transformer_block(x, dim, heads, drop):
    h = layers.LayerNormalization()(x)
    h = layers.MultiHeadAttention(heads, dim // heads, dropout=drop)(h, h, use_causal_mask=True)
    x = x + h
    h = layers.LayerNormalization()(x)
    h = layers.Dense(4 * dim, activation="gelu")(h)
    return x + layers.Dense(dim)(h)


def build_policy(window, state_dim, act_dim, dim=128, depth=4, heads=4, drop=0.1):
    inp = keras.Input((window, state_dim))
    x = layers.Dense(dim)(inp)
    x = x + layers.Embedding(window, dim)(keras.ops.arange(window))
    for _ in range(depth):
        x = transformer_block(x, dim, heads, drop)
    x = layers.LayerNormalization()(x[:, -1])
    return keras.Model(inp, layers.Dense(act_dim, activation="tanh")(x), name="rt1_state")
