import keras
from keras import layers

from .config import CATEGORICAL, NUMERIC


def build_wide_deep(hash_bins, embed_dim, dnn_units):
    inputs, wide_parts, deep_parts = {}, [], []
    for c in CATEGORICAL:
        inp = keras.Input(shape=(), dtype="string", name=c)
        inputs[c] = inp
        ids = layers.Hashing(num_bins=hash_bins, name=c + "_hash")(inp)
        wide_parts.append(layers.Embedding(hash_bins, 1, name=c + "_wide")(ids))
        deep_parts.append(layers.Embedding(hash_bins, embed_dim, name=c + "_emb")(ids))
    for n in NUMERIC:
        inp = keras.Input(shape=(), dtype="float32", name=n)
        inputs[n] = inp
        deep_parts.append(layers.Reshape((1,))(inp))
    wide = layers.Add()(wide_parts)
    x = layers.Concatenate()(deep_parts)
    for u in dnn_units:
        x = layers.Dense(u, activation="relu")(x)
    deep = layers.Dense(1)(x)
    logit = layers.Add()([wide, deep])
    out = layers.Activation("sigmoid", name="ctr")(logit)
    return keras.Model(inputs, out, name="wide_deep")
