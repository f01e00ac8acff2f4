import math
import tensorflow as tf
import keras


class Coupling(keras.layers.Layer):
    def __init__(self, hidden, parity, **kw):
        super().__init__(**kw)
        self.hidden, self.parity = hidden, parity

    def build(self, shape):
        h, w, c = shape[1:]
        m = ((tf.range(h)[:, None] + tf.range(w)[None, :]) % 2 == self.parity)
        self.mask = tf.cast(m, tf.float32)[None, :, :, None]
        self.net = keras.Sequential([keras.layers.Conv2D(self.hidden, 3, padding="same", activation="relu"),
                                     keras.layers.Conv2D(self.hidden, 3, padding="same", activation="relu"),
                                     keras.layers.Conv2D(2 * c, 3, padding="same", kernel_initializer="zeros")])

    def call(self, x):
        xm = x * self.mask
        s, t = tf.split(self.net(xm), 2, -1)
        s = tf.tanh(s) * (1 - self.mask)
        t = t * (1 - self.mask)
        y = xm + (1 - self.mask) * (x * tf.exp(s) + t)
        return y, tf.reduce_sum(s, [1, 2, 3])


class RealNVP(keras.Model):
    def __init__(self, n_coupling=6, hidden=128, alpha=0.05):
        super().__init__()
        self.cs = [Coupling(hidden, i % 2) for i in range(n_coupling)]
        self.alpha = alpha

    def call(self, x):
        y = self.alpha + (1 - 2 * self.alpha) * x
        z = tf.math.log(y) - tf.math.log1p(-y)
        ld = tf.reduce_sum(math.log(1 - 2 * self.alpha) - tf.math.log(y) - tf.math.log1p(-y), [1, 2, 3])
        for c in self.cs:
            z, l = c(z)
            ld += l
        logp = tf.reduce_sum(-0.5 * (z ** 2 + math.log(2 * math.pi)), [1, 2, 3])
        return -(logp + ld)  # nll in nats of the [0,1] data


def to_bpd(nll, dims):
    return (nll / dims + math.log(256.0)) / math.log(2.0)
