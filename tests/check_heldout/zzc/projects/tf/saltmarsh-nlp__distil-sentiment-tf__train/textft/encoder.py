import keras
from keras import layers


class Block(layers.Layer):
    def __init__(self, dim, heads, **kw):
        super().__init__(**kw)
        self.attn = layers.MultiHeadAttention(heads, dim // heads)
        self.ff = keras.Sequential([layers.Dense(4 * dim, activation="gelu"), layers.Dense(dim)])
        self.ln1, self.ln2 = layers.LayerNormalization(), layers.LayerNormalization()

    def call(self, x, attn_mask=None):
        x = self.ln1(x + self.attn(x, x, attention_mask=attn_mask))
        return self.ln2(x + self.ff(x))


class Encoder(keras.Model):
    def __init__(self, vocab=32000, dim=384, depth=6, heads=6, max_len=256):
        super().__init__(name="encoder")
        self.tok = layers.Embedding(vocab, dim)
        self.pos = layers.Embedding(max_len, dim)
        self.blocks = [Block(dim, heads, name=f"block_{i}") for i in range(depth)]

    def call(self, ids):
        pad = keras.ops.not_equal(ids, 0)
        mask = keras.ops.logical_and(pad[:, None, :], pad[:, :, None])
        x = self.tok(ids) + self.pos(keras.ops.arange(keras.ops.shape(ids)[1]))
        for b in self.blocks:
            x = b(x, attn_mask=mask)
        return x[:, 0]


class SentimentClassifier(keras.Model):
    def __init__(self, num_labels):
        super().__init__()
        self.encoder = Encoder()
        self.pooler = layers.Dense(384, activation="tanh")
        self.drop = layers.Dropout(0.1)
        self.out = layers.Dense(num_labels)

    def call(self, ids, training=False):
        return self.out(self.drop(self.pooler(self.encoder(ids)), training=training))


def build_classifier(num_labels):
    return SentimentClassifier(num_labels)


def load_encoder_weights(model, path):
    model.encoder.load_weights(path)
