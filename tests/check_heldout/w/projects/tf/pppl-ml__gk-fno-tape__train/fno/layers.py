import keras
import tensorflow as tf


class SpectralConv1d(keras.layers.Layer):
    def __init__(self, width, modes, **kw):
        super().__init__(**kw)
        self.width, self.modes = width, modes

    def build(self, input_shape):
        scale = 1.0 / (self.width * self.width)
        init = keras.initializers.RandomUniform(0.0, scale)
        self.w_re = self.add_weight(shape=(self.modes, self.width, self.width), initializer=init, name="w_re")
        self.w_im = self.add_weight(shape=(self.modes, self.width, self.width), initializer=init, name="w_im")

    def call(self, x):
        nx = tf.shape(x)[1]
        xf = tf.signal.rfft(tf.transpose(x, [0, 2, 1]))[:, :, : self.modes]      # (b, c, m)
        w = tf.complex(self.w_re, self.w_im)
        yf = tf.einsum("bim,mio->bom", xf, w)
        pad = tf.zeros_like(tf.signal.rfft(tf.transpose(x, [0, 2, 1]))[:, :, self.modes:])
        y = tf.signal.irfft(tf.concat([yf, pad], axis=-1), fft_length=[nx])
        return tf.transpose(y, [0, 2, 1])


def build_fno(nx=None, in_ch=3, width=64, modes=16, n_layers=4):
    inp = keras.Input((nx, in_ch))
    h = keras.layers.Dense(width)(inp)
    for _ in range(n_layers):
        h = keras.activations.gelu(SpectralConv1d(width, modes)(h) + keras.layers.Conv1D(width, 1)(h))
    h = keras.layers.Dense(128, activation="gelu")(h)
    return keras.Model(inp, keras.layers.Dense(1)(h), name="fno1d")
