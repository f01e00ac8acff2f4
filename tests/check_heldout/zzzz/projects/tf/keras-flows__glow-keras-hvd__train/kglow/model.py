import math
import tensorflow as tf
import keras

from .layers import ActNorm, Inv1x1, AffineCoupling, squeeze2d


class Glow(keras.Model):
    """outputs per-example negative log-likelihood in bits per dim"""

    def __init__(self, levels=3, depth=8, width=256, n_bits=8, **kw):
        super().__init__(**kw)
        self.levels, self.depth, self.n_bins = levels, depth, 2.0 ** n_bits
        self.steps = [[(ActNorm(), Inv1x1(), AffineCoupling(width)) for _ in range(depth)] for _ in range(levels)]

    def _flow(self, x, init=False):
        logdet = tf.zeros(tf.shape(x)[:1])
        logp = tf.zeros(tf.shape(x)[:1])
        for i, level in enumerate(self.steps):
            x = squeeze2d(x)
            for an, conv, cp in level:
                if init:
                    an(x)  # build
                    x = an.data_init(x)
                    ld_an = 0.0
                else:
                    x, ld_an = an(x)
                x, ld_c = conv(x)
                x, ld_cp = cp(x)
                logdet += ld_an + ld_c + ld_cp
            if i < self.levels - 1:
                x, z = tf.split(x, 2, axis=-1)
            else:
                z = x
            logp += tf.reduce_sum(-0.5 * (z ** 2 + math.log(2 * math.pi)), axis=[1, 2, 3])
        return logp, logdet

    def data_dependent_init(self, x):
        self._flow(x, init=True)

    def call(self, x):
        logp, logdet = self._flow(x)
        d = float(x.shape[1] * x.shape[2] * x.shape[3])
        nll = -(logp + logdet) + d * math.log(self.n_bins)
        return nll / (d * math.log(2.0))


def bpd_loss(y_true, bpd):
    return bpd
