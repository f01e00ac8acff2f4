import keras


def build_router(vocab_size, embed_dim, n_queues, seq_len):
    tokens = keras.Input(shape=(seq_len,), dtype="int32", name="token_ids")
    x = keras.layers.Embedding(vocab_size, embed_dim, mask_zero=True)(tokens)
    x = keras.layers.GlobalAveragePooling1D()(x)
    x = keras.layers.Dense(embed_dim, activation="relu")(x)
    x = keras.layers.Dropout(0.2)(x)
    return keras.Model(tokens, keras.layers.Dense(n_queues, activation="softmax")(x), name="ticket_router")
