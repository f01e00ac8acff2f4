import numpy as np
import tensorflow as tf
import keras


def neighbour_pairs(pos, seg, cutoff):
    diff = pos[:, None, :] - pos[None, :, :]
    d2 = tf.reduce_sum(tf.square(tf.stop_gradient(diff)), -1)
    n = tf.shape(pos)[0]
    mask = (seg[:, None] == seg[None, :]) & (d2 < cutoff ** 2) & ~tf.eye(n, dtype=tf.bool)
    ij = tf.where(mask)
    return tf.cast(ij[:, 0], tf.int32), tf.cast(ij[:, 1], tf.int32)


class CFConv(keras.layers.Layer):
    def __init__(self, features, **kw):
        super().__init__(**kw)
        self.filter_net = keras.Sequential([keras.layers.Dense(features, activation="silu"),
                                            keras.layers.Dense(features)])
        self.in2f = keras.layers.Dense(features, use_bias=False)
        self.f2out = keras.Sequential([keras.layers.Dense(features, activation="silu"),
                                       keras.layers.Dense(features)])

    def call(self, h, rbf, i, j, n_atoms):
        w = self.filter_net(rbf)
        msg = tf.gather(self.in2f(h), j) * w
        return self.f2out(tf.math.unsorted_segment_sum(msg, i, n_atoms))


class SchNet(keras.Model):
    def __init__(self, features=64, interactions=3, n_rbf=25, cutoff=5.0, **kw):
        super().__init__(**kw)
        self.cutoff = cutoff
        self.mu = tf.constant(np.linspace(0, cutoff, n_rbf), tf.float32)
        self.embed = keras.layers.Embedding(100, features)
        self.convs = [CFConv(features) for _ in range(interactions)]
        self.head = keras.Sequential([keras.layers.Dense(features // 2, activation="silu"),
                                      keras.layers.Dense(1)])

    def call(self, z, pos, seg, n_mol):
        i, j = neighbour_pairs(pos, seg, self.cutoff)
        r = tf.norm(tf.gather(pos, j) - tf.gather(pos, i), axis=-1)
        fc = 0.5 * (tf.cos(np.pi * r / self.cutoff) + 1.0)
        rbf = tf.exp(-10.0 * tf.square(r[:, None] - self.mu)) * fc[:, None]
        h = self.embed(z)
        n_atoms = tf.shape(z)[0]
        for conv in self.convs:
            h = h + conv(h, rbf, i, j, n_atoms)
        e_atom = tf.squeeze(self.head(h), -1)
        return tf.math.unsorted_segment_sum(e_atom, seg, n_mol)
