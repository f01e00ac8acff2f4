import keras
from keras import layers, ops


def bilstm_attention(vocab_size, seq_len, n_classes, dim=128):
    ids = keras.Input((seq_len,), dtype="int64")
    x = layers.Embedding(vocab_size, dim, mask_zero=True)(ids)
    h = layers.Bidirectional(layers.LSTM(dim, return_sequences=True))(x)
    scores = layers.Dense(1)(layers.Dense(dim, activation="tanh")(h))
    weights = layers.Softmax(axis=1)(scores)
    pooled = layers.Lambda(lambda t: ops.sum(t[0] * t[1], axis=1))([h, weights])
    out = layers.Dense(n_classes, activation="softmax")(layers.Dropout(0.3)(pooled))
    return keras.Model(ids, out)
