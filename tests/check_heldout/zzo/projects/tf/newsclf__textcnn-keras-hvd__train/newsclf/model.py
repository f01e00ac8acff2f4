import keras
from keras import layers


def textcnn(vocab_size, seq_len, embed_dim, num_classes, filters=(3, 4, 5), n_filters=128):
    tokens = keras.Input(shape=(seq_len,), dtype="int32", name="tokens")
    emb = layers.Embedding(vocab_size, embed_dim)(tokens)
    pooled = []
    for width in filters:
        c = layers.Conv1D(n_filters, width, activation="relu")(emb)
        pooled.append(layers.GlobalMaxPooling1D()(c))
    x = layers.Dropout(0.5)(layers.Concatenate()(pooled))
    return keras.Model(tokens, layers.Dense(num_classes, activation="softmax")(x), name="textcnn")
