import keras
from keras import layers


def _bigru(vocab_size, embed_dim, seq_len):
    tokens = keras.Input((seq_len,), dtype="int32")
    x = layers.Embedding(vocab_size, embed_dim, mask_zero=True)(tokens)
    x = layers.Bidirectional(layers.GRU(64, return_sequences=True))(x)
    x = layers.GlobalMaxPooling1D()(x)
    x = layers.Dropout(0.3)(x)
    x = layers.Dense(64, activation="relu")(x)
    return keras.Model(tokens, layers.Dense(1, activation="sigmoid")(x), name="revsent_bigru")


def _textcnn(vocab_size, embed_dim, seq_len):
    tokens = keras.Input((seq_len,), dtype="int32")
    x = layers.Embedding(vocab_size, embed_dim)(tokens)
    pooled = [layers.GlobalMaxPooling1D()(layers.Conv1D(64, k, activation="relu")(x)) for k in (3, 4, 5)]
    x = layers.Dropout(0.3)(layers.concatenate(pooled))
    return keras.Model(tokens, layers.Dense(1, activation="sigmoid")(x), name="revsent_textcnn")


ARCHS = {"bigru": _bigru, "textcnn": _textcnn}


def build_classifier(vocab_size, embed_dim, seq_len, arch="bigru"):
    return ARCHS[arch](vocab_size, embed_dim, seq_len)
