import keras
from keras import layers


def build_classifier(vocab_size, n_labels, max_len, embed_dim=128, hidden=128):
    inp = keras.Input((max_len,), dtype="int64")
    x = layers.Embedding(vocab_size, embed_dim, mask_zero=True)(inp)
    x = layers.Bidirectional(layers.GRU(hidden, return_sequences=True))(x)
    x = layers.GlobalMaxPooling1D()(x)
    x = layers.Dropout(0.3)(x)
    out = layers.Dense(n_labels)(x)
    return keras.Model(inp, out, name="intent_bigru")
