import tensorflow as tf


class GeoTextModel(tf.keras.Model):
    def __init__(self, vocab, dim=128, **kw):
        super().__init__(**kw)
        self.vectorize = tf.keras.layers.TextVectorization(output_sequence_length=24)
        self.vectorize.set_vocabulary(vocab)
        self.tok_emb = tf.keras.layers.Embedding(len(vocab) + 2, 128, mask_zero=True)
        self.pool = tf.keras.layers.GlobalAveragePooling1D()
        self.txt_head = tf.keras.layers.Dense(dim)
        self.tile_head = tf.keras.Sequential([tf.keras.layers.Dense(256, activation="relu"),
                                              tf.keras.layers.Dense(dim)])
        self.log_temp = tf.Variable(tf.math.log(0.07), trainable=True, name="log_temp")

    def embed_text(self, s):
        t = self.vectorize(s)
        return tf.math.l2_normalize(self.txt_head(self.pool(self.tok_emb(t), mask=t != 0)), -1)

    def embed_tile(self, x):
        return tf.math.l2_normalize(self.tile_head(x), -1)

    def call(self, inputs):
        tiles, texts = inputs
        return self.embed_tile(tiles), self.embed_text(texts)
