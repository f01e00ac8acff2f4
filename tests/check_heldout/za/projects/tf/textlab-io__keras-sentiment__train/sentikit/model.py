import keras
from keras import layers


class TokenAndPosition(layers.Layer):
    def __init__(self, seq_len, vocab_size, dim, **kw):
        super().__init__(**kw)
        self.tok = layers.Embedding(vocab_size, dim, mask_zero=False)
        self.pos = layers.Embedding(seq_len, dim)
        self.seq_len = seq_len

    def call(self, x):
        return self.tok(x) + self.pos(keras.ops.arange(self.seq_len))


def build_model(seq_len, vocab_size, dim=128, heads=4, ff=256, dropout=0.1):
    inp = keras.Input((seq_len,), dtype="int64")
    x = TokenAndPosition(seq_len, vocab_size, dim)(inp)
    att = layers.MultiHeadAttention(heads, dim // heads)(x, x)
    x = layers.LayerNormalization()(x + layers.Dropout(dropout)(att))
    f = layers.Dense(ff, activation="gelu")(x)
    x = layers.LayerNormalization()(x + layers.Dropout(dropout)(layers.Dense(dim)(f)))
    x = layers.GlobalAveragePooling1D()(x)
    out = layers.Dense(1, activation="sigmoid")(layers.Dropout(dropout)(x))
    return keras.Model(inp, out, name="sentiment_transformer")
