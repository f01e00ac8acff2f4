"""Demand MLP: dense features + a learned store embedding, predicting log1p(units).

The store id vocabulary is fixed by settings.NUM_STORES (ids are assigned by the feature job).
"""
import keras

from demand import settings


def build_model():
    x_in = keras.Input((settings.FEATURE_DIM,), name="x")
    store_in = keras.Input((), dtype="int64", name="store")
    store = keras.layers.Embedding(settings.NUM_STORES, settings.STORE_EMBED)(store_in)
    h = keras.layers.Concatenate()([x_in, store])
    for width in (256, 256, 128):
        h = keras.layers.Dense(width, activation="relu")(h)
        h = keras.layers.BatchNormalization()(h)
    out = keras.layers.Dense(1, name="log_units")(h)
    return keras.Model({"x": x_in, "store": store_in}, out, name="demand_mlp")
