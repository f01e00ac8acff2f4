import tensorflow as tf
import keras
from keras import layers


class Seq2SeqSS(keras.Model):
    """GRU encoder-decoder trained with scheduled sampling: with prob `teacher_ratio` the decoder
    gets the true previous value, otherwise its own previous prediction."""

    def __init__(self, units, dec_len, **kw):
        super().__init__(**kw)
        self.encoder = layers.GRU(units, return_state=True)
        self.cell = layers.GRUCell(units)
        self.proj = layers.Dense(1)
        self.dec_len = dec_len
        self.teacher_ratio = tf.Variable(1.0, trainable=False, name="teacher_ratio")

    def call(self, inputs, training=False):
        enc, dec_in = inputs
        _, h = self.encoder(enc)
        prev = dec_in[:, 0]
        outs = []
        for t in range(self.dec_len):
            out, states = self.cell(prev, [h], training=training)
            h = states[0]
            y = self.proj(out)
            outs.append(y)
            if t + 1 < self.dec_len:
                if training:
                    coin = tf.random.uniform((tf.shape(y)[0], 1)) < self.teacher_ratio
                    prev = tf.where(coin, dec_in[:, t + 1], y)
                else:
                    prev = y
        return tf.stack(outs, axis=1)


def directional_accuracy(y_true, y_pred):
    return tf.reduce_mean(tf.cast(tf.sign(y_true) == tf.sign(y_pred), tf.float32))
