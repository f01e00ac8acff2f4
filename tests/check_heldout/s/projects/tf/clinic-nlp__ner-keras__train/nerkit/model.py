import keras


def bilstm_tagger(vocab_size, num_tags, embed_dim, lstm_units):
    tokens = keras.Input((None,), dtype="int32", name="tokens")
    h = keras.layers.Embedding(vocab_size, embed_dim, mask_zero=True)(tokens)
    h = keras.layers.SpatialDropout1D(0.2)(h)
    h = keras.layers.Bidirectional(keras.layers.LSTM(lstm_units, return_sequences=True))(h)
    h = keras.layers.Dense(lstm_units, activation="relu")(h)
    return keras.Model(tokens, keras.layers.Dense(num_tags)(h), name="bilstm_tagger")
