import tensorflow as tf


class ConvSeq2Seq(tf.keras.Model):
    """Small convolutional encoder + LSTM decoder, good enough for low-resource pairs."""

    def __init__(self, vocab, d=256):
        super().__init__()
        self.emb = tf.keras.layers.Embedding(vocab, d)
        self.convs = [tf.keras.layers.Conv1D(d, 3, padding="same", activation="relu") for _ in range(4)]
        self.dec = tf.keras.layers.LSTM(d, return_sequences=True)
        self.att = tf.keras.layers.Attention(use_scale=True)
        self.out = tf.keras.layers.Dense(vocab)

    def call(self, src, tgt_in, training=False):
        h = self.emb(src)
        for conv in self.convs:
            h = h + conv(h)
        d = self.dec(self.emb(tgt_in))
        return self.out(tf.concat([d, self.att([d, h])], -1))
