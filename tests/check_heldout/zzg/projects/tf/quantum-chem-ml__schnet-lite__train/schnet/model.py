import keras
import tensorflow as tf


class CFConv(keras.layers.Layer):
    """Continuous-filter convolution with a Gaussian distance expansion."""

    def __init__(self, units, n_rbf=32, cutoff=5.0, **kw):
        super().__init__(**kw)
        self.centers = tf.linspace(0.0, cutoff, n_rbf)
        self.gamma = 10.0 / cutoff
        self.filter_net = keras.Sequential([keras.layers.Dense(units, activation="softplus"),
                                            keras.layers.Dense(units)])
        self.in2f = keras.layers.Dense(units, use_bias=False)
        self.f2out = keras.Sequential([keras.layers.Dense(units, activation="softplus"), keras.layers.Dense(units)])

    def call(self, h, pos, src, dst):
        d = tf.norm(tf.gather(pos, dst) - tf.gather(pos, src) + 1e-9, axis=-1)
        rbf = tf.exp(-self.gamma * (d[:, None] - self.centers[None]) ** 2)
        msg = tf.gather(self.in2f(h), src) * self.filter_net(rbf)
        return h + self.f2out(tf.math.unsorted_segment_sum(msg, dst, tf.shape(h)[0]))


class SchNet(keras.Model):
    def __init__(self, units=64, interactions=3, cutoff=5.0, max_z=20):
        super().__init__()
        self.embed = keras.layers.Embedding(max_z, units)
        self.blocks = [CFConv(units, cutoff=cutoff) for _ in range(interactions)]
        self.out = keras.Sequential([keras.layers.Dense(units // 2, activation="softplus"), keras.layers.Dense(1)])

    def call(self, g):
        h = self.embed(g["z"])
        for blk in self.blocks:
            h = blk(h, g["pos"], g["src"], g["dst"])
        return tf.math.unsorted_segment_sum(self.out(h)[:, 0], g["mol"], g["n_mol"])
