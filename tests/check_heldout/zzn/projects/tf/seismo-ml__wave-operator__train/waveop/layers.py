import tensorflow as tf


class SpectralConv1d(tf.keras.layers.Layer):
    """Fourier layer written out by hand: rfft, keep `modes` coefficients, complex channel mixing, irfft."""

    def __init__(self, channels, modes, **kw):
        super().__init__(**kw)
        self.channels, self.modes = channels, modes

    def build(self, input_shape):
        scale = 1.0 / (self.channels * self.channels)
        init = tf.keras.initializers.RandomUniform(0.0, scale)
        shape = (self.channels, self.channels, self.modes)
        self.w_re = self.add_weight(name="w_re", shape=shape, initializer=init)
        self.w_im = self.add_weight(name="w_im", shape=shape, initializer=init)

    def call(self, x):                           # x: (B, N, C)
        n = tf.shape(x)[1]
        x_ft = tf.signal.rfft(tf.transpose(x, [0, 2, 1]))[..., : self.modes]   # (B, C, modes)
        w = tf.complex(self.w_re, self.w_im)
        out = tf.einsum("bim,iom->bom", x_ft, w)
        pad = n // 2 + 1 - self.modes
        out = tf.pad(out, [[0, 0], [0, 0], [0, pad]])
        return tf.transpose(tf.signal.irfft(out, fft_length=[n]), [0, 2, 1])


class FNO1d(tf.keras.Model):
    def __init__(self, modes=16, width=64, depth=4, out_ch=1):
        super().__init__()
        self.lift = tf.keras.layers.Dense(width)
        self.spec = [SpectralConv1d(width, modes) for _ in range(depth)]
        self.skip = [tf.keras.layers.Conv1D(width, 1) for _ in range(depth)]
        self.proj1 = tf.keras.layers.Dense(128, activation="gelu")
        self.proj2 = tf.keras.layers.Dense(out_ch)

    def call(self, x):
        h = self.lift(x)
        for i, (s, c) in enumerate(zip(self.spec, self.skip)):
            h = s(h) + c(h)
            if i < len(self.spec) - 1:
                h = tf.nn.gelu(h)
        return self.proj2(self.proj1(h))
