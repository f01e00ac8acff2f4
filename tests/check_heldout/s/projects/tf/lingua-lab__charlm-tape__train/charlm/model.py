import keras


def build_lm(vocab_size, embed, units):
    inp = keras.Input((None,), dtype="int64")
    h = keras.layers.Embedding(vocab_size + 1, embed)(inp)
    h = keras.layers.LSTM(units, return_sequences=True)(h)
    h = keras.layers.LSTM(units, return_sequences=True)(h)
    return keras.Model(inp, keras.layers.Dense(vocab_size + 1)(h), name="charlm")
