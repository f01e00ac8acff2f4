import math
import tensorflow as tf
import keras


def radius_pairs(pos, seg, rc):
    n = tf.shape(pos)[0]
    d = tf.norm(tf.stop_gradient(pos)[:, None] - tf.stop_gradient(pos)[None], axis=-1)
    m = tf.logical_and(tf.equal(seg[:, None], seg[None]), d < rc)
    m = tf.logical_and(m, tf.logical_not(tf.eye(n, dtype=tf.bool)))
    ij = tf.cast(tf.where(m), tf.int32)
    return ij[:, 0], ij[:, 1]


class PaiNNBlock(keras.layers.Layer):
    def __init__(self, F, n_rbf, **kw):
        super().__init__(**kw)
        self.F = F
        self.phi = keras.Sequential([keras.layers.Dense(F, activation="silu"), keras.layers.Dense(3 * F)])
        self.W = keras.layers.Dense(3 * F)
        self.U = keras.layers.Dense(F, use_bias=False)
        self.V = keras.layers.Dense(F, use_bias=False)
        self.upd = keras.Sequential([keras.layers.Dense(F, activation="silu"), keras.layers.Dense(3 * F)])

    def call(self, s, v, i, j, rbf, unit, n):
        x = tf.gather(self.phi(s), j) * self.W(rbf)
        ds, dvv, dvs = tf.split(x, 3, axis=-1)
        dv = tf.gather(v, j) * dvv[:, None, :] + dvs[:, None, :] * unit[:, :, None]
        s = s + tf.math.unsorted_segment_sum(ds, i, n)
        v = v + tf.math.unsorted_segment_sum(dv, i, n)
        Uv, Vv = self.U(v), self.V(v)
        vn = tf.sqrt(tf.reduce_sum(Vv ** 2, 1) + 1e-8)
        a_vv, a_sv, a_ss = tf.split(self.upd(tf.concat([s, vn], -1)), 3, axis=-1)
        return s + a_sv * tf.reduce_sum(Uv * Vv, 1) + a_ss, v + a_vv[:, None, :] * Uv


class PaiNN(keras.Model):
    def __init__(self, F=64, n_layers=3, n_rbf=20, rc=5.0, **kw):
        super().__init__(**kw)
        self.F, self.n_rbf, self.rc = F, n_rbf, rc
        self.emb = keras.layers.Embedding(100, F)
        self.blocks = [PaiNNBlock(F, n_rbf) for _ in range(n_layers)]
        self.out = keras.Sequential([keras.layers.Dense(F, activation="silu"), keras.layers.Dense(1)])

    def call(self, z, pos, seg, n_mol):
        i, j = radius_pairs(pos, seg, self.rc)
        rij = tf.gather(pos, j) - tf.gather(pos, i)
        r = tf.norm(rij, axis=-1)
        unit = rij / r[:, None]
        k = tf.range(1, self.n_rbf + 1, dtype=tf.float32)
        fc = 0.5 * (tf.cos(math.pi * r / self.rc) + 1.0)
        rbf = tf.sin(k * math.pi * r[:, None] / self.rc) / r[:, None] * fc[:, None]
        n = tf.shape(z)[0]
        s = self.emb(z)
        v = tf.zeros([n, 3, self.F])
        for b in self.blocks:
            s, v = b(s, v, i, j, rbf, unit, n)
        return tf.math.unsorted_segment_sum(tf.squeeze(self.out(s), -1), seg, n_mol)
