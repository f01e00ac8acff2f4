import keras
from keras import layers


def sentiment_model(vocab_size, max_len, embed_dim=128, conv_filters=(128, 128), dropout=0.3):
    tokens = keras.Input(shape=(max_len,), dtype="int32", name="tokens")
    x = layers.Embedding(vocab_size, embed_dim, mask_zero=False)(tokens)
    branches = []
    for width, filters in zip((3, 5), conv_filters):
        b = layers.Conv1D(filters, width, activation="relu", padding="same")(x)
        branches.append(layers.GlobalMaxPooling1D()(b))
    x = layers.Concatenate()(branches)
    x = layers.Dropout(dropout)(x)
    out = layers.Dense(1, activation="sigmoid", name="positive")(x)
    return keras.Model(tokens, out, name="textcnn")
