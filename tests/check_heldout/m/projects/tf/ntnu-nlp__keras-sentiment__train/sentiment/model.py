import keras
from keras import layers


def text_cnn(vocab_size, max_len, embed_dim=200, filters=(3, 4, 5), n_filters=128, dropout=0.4):
    inp = keras.Input((max_len,), dtype="int32")
    x = layers.Embedding(vocab_size, embed_dim, mask_zero=False)(inp)
    pooled = []
    for k in filters:
        h = layers.Conv1D(n_filters, k, activation="relu")(x)
        pooled.append(layers.GlobalMaxPooling1D()(h))
    x = layers.Concatenate()(pooled)
    x = layers.Dropout(dropout)(x)
    out = layers.Dense(1, activation="sigmoid")(x)
    return keras.Model(inp, out, name="text_cnn")
