from tensorflow import keras


def _cnn(cfg, vocab_size, seq_len, num_classes):
    inp = keras.Input((seq_len,), dtype="int64")
    x = keras.layers.Embedding(vocab_size, cfg["embed_dim"], mask_zero=False)(inp)
    pooled = []
    for k in cfg["kernel_sizes"]:
        c = keras.layers.Conv1D(cfg["filters"], k, activation="relu")(x)
        pooled.append(keras.layers.GlobalMaxPooling1D()(c))
    x = keras.layers.Concatenate()(pooled)
    x = keras.layers.Dropout(cfg["dropout"])(x)
    return keras.Model(inp, keras.layers.Dense(num_classes)(x), name="textcnn")


def _bilstm(cfg, vocab_size, seq_len, num_classes):
    inp = keras.Input((seq_len,), dtype="int64")
    x = keras.layers.Embedding(vocab_size, cfg["embed_dim"], mask_zero=True)(inp)
    x = keras.layers.Bidirectional(keras.layers.LSTM(cfg["filters"] // 2))(x)
    x = keras.layers.Dropout(cfg["dropout"])(x)
    return keras.Model(inp, keras.layers.Dense(num_classes)(x), name="bilstm")


BUILDERS = {"cnn": _cnn, "bilstm": _bilstm}


def build_model(cfg, vocab_size, seq_len, num_classes):
    return BUILDERS[cfg["kind"]](cfg, vocab_size, seq_len, num_classes)
