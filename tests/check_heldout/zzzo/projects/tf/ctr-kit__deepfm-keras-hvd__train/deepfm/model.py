import keras
from keras import layers

from .layers import FMInteraction
from .options import N_DENSE, N_SPARSE


def build(vocab, k, dnn):
    dense = keras.Input((N_DENSE,), name="dense_feats")
    sparse = keras.Input((N_SPARSE,), dtype="int64", name="sparse_ids")
    first = layers.Flatten()(layers.Embedding(vocab, 1, name="w1")(sparse))
    linear = layers.Add()([layers.Dense(1)(dense),
                           layers.Lambda(lambda t: keras.ops.sum(t, axis=1, keepdims=True))(first)])
    v = layers.Embedding(vocab, k, name="v")(sparse)
    fm = FMInteraction()(v)
    h = layers.Concatenate()([layers.Flatten()(v), dense])
    for u in dnn:
        h = layers.Dense(u, activation="relu")(h)
        h = layers.Dropout(0.1)(h)
    deep = layers.Dense(1)(h)
    out = layers.Activation("sigmoid")(layers.Add()([linear, fm, deep]))
    return keras.Model({"dense_feats": dense, "sparse_ids": sparse}, out, name="deepfm")
