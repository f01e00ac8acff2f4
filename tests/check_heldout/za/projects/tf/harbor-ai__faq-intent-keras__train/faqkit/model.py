import keras
from keras import layers


def build_router(vocab_size, n_answers, seq_len=48, embed_dim=128, filters=256):
    inp = keras.Input((seq_len,), dtype="int64", name="tokens")
    x = layers.Embedding(vocab_size, embed_dim)(inp)
    branches = []
    for width in (2, 3, 4):
        b = layers.Conv1D(filters, width, activation="relu", padding="same")(x)
        branches.append(layers.GlobalMaxPooling1D()(b))
    x = layers.Dropout(0.4)(layers.Concatenate()(branches))
    out = layers.Dense(n_answers, activation="softmax")(x)
    return keras.Model(inp, out, name="faq_router")
