import tensorflow as tf


class Seq2Seq(tf.keras.Model):
    def __init__(self, vocab, emb=128, units=256):
        super().__init__()
        self.embed = tf.keras.layers.Embedding(vocab, emb, mask_zero=True)
        self.encoder = tf.keras.layers.GRU(units, return_sequences=True, return_state=True)
        self.decoder = tf.keras.layers.GRU(units, return_sequences=True, return_state=True)
        self.attn = tf.keras.layers.Attention()
        self.proj = tf.keras.layers.Dense(vocab)

    def call(self, src, tgt_in, state=None, memory=None):
        if memory is None:
            memory, state = self.encoder(self.embed(src))
        dec, state = self.decoder(self.embed(tgt_in), initial_state=state)
        ctx = self.attn([dec, memory])
        return self.proj(tf.concat([dec, ctx], -1)), state, memory
