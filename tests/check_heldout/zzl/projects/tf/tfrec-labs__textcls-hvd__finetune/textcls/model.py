import tensorflow as tf


class TextClassifier(tf.keras.Model):
    def __init__(self, vocab_size, max_len, dim=256, heads=4, num_classes=2):
        super().__init__()
        self.tok = tf.keras.layers.Embedding(vocab_size, dim)
        self.pos = tf.keras.layers.Embedding(max_len, dim)
        self.attn = tf.keras.layers.MultiHeadAttention(heads, dim // heads)
        self.norm1 = tf.keras.layers.LayerNormalization()
        self.ffn = tf.keras.Sequential([tf.keras.layers.Dense(4 * dim, activation="gelu"),
                                        tf.keras.layers.Dense(dim)])
        self.norm2 = tf.keras.layers.LayerNormalization()
        self.out = tf.keras.layers.Dense(num_classes)

    def call(self, ids, training=False):
        pos = tf.range(tf.shape(ids)[1])
        h = self.tok(ids) + self.pos(pos)
        h = self.norm1(h + self.attn(h, h, training=training))
        h = self.norm2(h + self.ffn(h))
        return self.out(tf.reduce_mean(h, axis=1))
