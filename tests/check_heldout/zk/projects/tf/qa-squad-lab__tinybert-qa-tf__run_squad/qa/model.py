import tensorflow as tf


class SpanExtractor(tf.keras.Model):
    def __init__(self, vocab_size, dim=128, heads=4, layers=2, max_len=384):
        super().__init__()
        self.tok = tf.keras.layers.Embedding(vocab_size, dim)
        self.pos = tf.keras.layers.Embedding(max_len, dim)
        self.attn = [tf.keras.layers.MultiHeadAttention(heads, dim // heads) for _ in range(layers)]
        self.ffn = [tf.keras.layers.Dense(dim, activation="gelu") for _ in range(layers)]
        self.norms = [tf.keras.layers.LayerNormalization() for _ in range(2 * layers)]
        self.qa_outputs = tf.keras.layers.Dense(2)

    def call(self, ids, mask, training=False):
        L = tf.shape(ids)[1]
        h = self.tok(ids) + self.pos(tf.range(L))
        m = tf.cast(mask[:, None, :], tf.bool)
        for i, (att, ff) in enumerate(zip(self.attn, self.ffn)):
            h = self.norms[2 * i](h + att(h, h, attention_mask=m, training=training))
            h = self.norms[2 * i + 1](h + ff(h))
        logits = self.qa_outputs(h)
        neg = (1.0 - tf.cast(mask, logits.dtype)) * -1e4
        return logits[..., 0] + neg, logits[..., 1] + neg
