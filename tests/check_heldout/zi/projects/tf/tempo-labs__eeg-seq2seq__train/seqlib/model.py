import keras
from keras import layers


class Seq2Seq(keras.Model):
    """GRU encoder; the decoder is fed the last observed frame and rolls out dec_len steps."""

    def __init__(self, channels, dec_len, units=256):
        super().__init__()
        self.dec_len = dec_len
        self.encoder = layers.GRU(units, return_state=True)
        self.decoder = layers.GRU(units, return_sequences=True)
        self.repeat = layers.RepeatVector(dec_len)
        self.out = layers.TimeDistributed(layers.Dense(channels))

    def call(self, x, training=False):
        _, state = self.encoder(x, training=training)
        dec_in = self.repeat(x[:, -1, :])
        h = self.decoder(dec_in, initial_state=state, training=training)
        return self.out(h)
