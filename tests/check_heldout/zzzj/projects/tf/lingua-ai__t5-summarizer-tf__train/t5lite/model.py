import tensorflow as tf


class Summarizer(tf.keras.Model):
    def __init__(self, vocab_size, d=256):
        super().__init__()
        self.emb = tf.keras.layers.Embedding(vocab_size, d)
        self.enc = tf.keras.layers.Bidirectional(tf.keras.layers.LSTM(d // 2, return_sequences=True))
        self.dec = tf.keras.layers.LSTM(d, return_sequences=True)
        self.att = tf.keras.layers.MultiHeadAttention(4, d // 4)
        self.head = tf.keras.layers.Dense(vocab_size)

    def call(self, inputs, training=False):
        src, tgt_in = inputs
        mem = self.enc(self.emb(src))
        h = self.dec(self.emb(tgt_in))
        h = h + self.att(h, mem, training=training)
        return self.head(h)
