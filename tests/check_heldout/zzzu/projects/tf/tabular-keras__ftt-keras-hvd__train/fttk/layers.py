import keras
from keras import layers, ops


class NumericalEmbedding(layers.Layer):
    def __init__(self, d, **kw):
        super().__init__(**kw)
        self.d = d

    def build(self, shape):
        n = shape[-1]
        self.w = self.add_weight(shape=(n, self.d), initializer="glorot_uniform", name="w")
        self.b = self.add_weight(shape=(n, self.d), initializer="zeros", name="b")

    def call(self, x):
        return ops.expand_dims(x, -1) * self.w + self.b


class CLSToken(layers.Layer):
    def build(self, shape):
        self.cls = self.add_weight(shape=(1, 1, shape[-1]), initializer="zeros", name="cls")

    def call(self, x):
        cls = ops.repeat(self.cls, ops.shape(x)[0], axis=0)
        return ops.concatenate([cls, x], axis=1)


def transformer_block(x, d, heads, attn_dropout, ff_dropout):
    h = layers.LayerNormalization()(x)
    h = layers.MultiHeadAttention(heads, d // heads, dropout=attn_dropout)(h, h)
    x = x + h
    h = layers.LayerNormalization()(x)
    h = layers.Dense(d * 4 // 3, activation="gelu")(h)
    h = layers.Dropout(ff_dropout)(h)
    return x + layers.Dense(d)(h)
