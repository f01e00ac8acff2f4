import keras
from keras import layers

from .registry import MODELS


@MODELS.register("resmlp")
def resmlp(n_features, width=256, blocks=3, dropout=0.1):
    inp = keras.Input((n_features,))
    x = layers.Dense(width)(inp)
    for _ in range(blocks):
        h = layers.LayerNormalization()(x)
        h = layers.Dense(width * 2, activation="gelu")(h)
        h = layers.Dropout(dropout)(h)
        x = layers.Add()([x, layers.Dense(width)(h)])
    out = layers.Dense(1, activation="sigmoid")(layers.LayerNormalization()(x))
    return keras.Model(inp, out, name="resmlp")
