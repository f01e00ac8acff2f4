import keras
from keras import layers


def encoder_block(x, dim, heads, dropout):
    h = layers.LayerNormalization()(x)
    h = layers.MultiHeadAttention(heads, dim // heads, dropout=dropout)(h, h)
    x = x + h
    h = layers.LayerNormalization()(x)
    h = layers.Dense(dim * 4, activation="gelu")(h)
    h = layers.Dense(dim)(layers.Dropout(dropout)(h))
    return x + h


def demand_transformer(context, n_features, horizon, dim=64, heads=4, depth=3, dropout=0.1):
    inp = keras.Input((context, n_features))
    x = layers.Dense(dim)(inp)
    pos = layers.Embedding(context, dim)(keras.ops.arange(context))
    x = x + pos
    for _ in range(depth):
        x = encoder_block(x, dim, heads, dropout)
    x = layers.GlobalAveragePooling1D()(layers.LayerNormalization()(x))
    return keras.Model(inp, layers.Dense(horizon)(x))
