import keras
from keras import layers


def gru_lm(vocab_size, emb_dim, units, dropout=0.3):
    inp = keras.Input(shape=(None,), dtype='int64')
    x = layers.Embedding(vocab_size, emb_dim)(inp)
    x = layers.Dropout(dropout)(x)
    x = layers.GRU(units, return_sequences=True)(x)
    x = layers.GRU(units, return_sequences=True)(x)
    x = layers.Dropout(dropout)(x)
    out = layers.Dense(vocab_size)(x)
    return keras.Model(inp, out, name='gru_lm')
