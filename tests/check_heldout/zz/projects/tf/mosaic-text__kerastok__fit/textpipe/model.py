import keras
from keras import layers


def text_cnn(vocab_size, seq_len, n_classes, dim=128):
    tokens = keras.Input((seq_len,), dtype="int64")
    x = layers.Embedding(vocab_size, dim, mask_zero=False)(tokens)
    branches = [layers.GlobalMaxPooling1D()(layers.Conv1D(dim, k, activation="relu")(x))
                for k in (3, 4, 5)]
    x = layers.Dropout(0.4)(layers.Concatenate()(branches))
    return keras.Model(tokens, layers.Dense(n_classes)(x))
