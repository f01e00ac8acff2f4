import keras
from keras import layers


class PositionalEmbedding(layers.Layer):
    def __init__(self, seq_len, vocab_size, dim, **kw):
        super().__init__(**kw)
        self.tok = layers.Embedding(vocab_size, dim, mask_zero=False)
        self.pos = layers.Embedding(seq_len, dim)

    def call(self, x):
        positions = keras.ops.arange(keras.ops.shape(x)[-1])
        return self.tok(x) + self.pos(positions)


def build_classifier(seq_len, vocab_size, d_model, layers_n, heads, num_classes=2):
    inp = keras.Input((seq_len,), dtype="int32")
    x = PositionalEmbedding(seq_len, vocab_size, d_model)(inp)
    for _ in range(layers_n):
        h = layers.LayerNormalization()(x)
        x = x + layers.MultiHeadAttention(heads, d_model // heads)(h, h)
        h = layers.LayerNormalization()(x)
        x = x + layers.Dense(d_model)(layers.Dense(4 * d_model, activation="gelu")(h))
    x = layers.GlobalAveragePooling1D()(layers.LayerNormalization()(x))
    return keras.Model(inp, layers.Dense(num_classes, dtype="float32")(x))
