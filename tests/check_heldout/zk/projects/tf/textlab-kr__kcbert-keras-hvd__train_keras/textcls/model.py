import keras
from keras import layers

from . import defaults


def build_model(vocab_size, dim=128):
    inp = keras.Input(shape=(defaults.SEQ_LEN,), dtype="int64")
    x = layers.Embedding(vocab_size, dim, mask_zero=True)(inp)
    x = layers.Bidirectional(layers.GRU(dim // 2, return_sequences=True))(x)
    x = layers.GlobalMaxPooling1D()(x)
    x = layers.Dropout(0.3)(x)
    out = layers.Dense(1, activation="sigmoid")(x)
    return keras.Model(inp, out, name="nsmc_bigru")
