import tensorflow as tf
import keras


def ssp(x):
    return tf.nn.softplus(x) - tf.math.log(2.0)


class RBF(keras.layers.Layer):
    def __init__(self, n=50, cutoff=5.0, **kw):
        super().__init__(**kw)
        self.mu = tf.linspace(0.0, cutoff, n)
        self.gamma = 10.0

    def call(self, d):
        return tf.exp(-self.gamma * (d[:, None] - self.mu[None, :]) ** 2)


class Interaction(keras.layers.Layer):
    def __init__(self, f, **kw):
        super().__init__(**kw)
        self.filt1 = keras.layers.Dense(f, activation=ssp)
        self.filt2 = keras.layers.Dense(f)
        self.in2f = keras.layers.Dense(f, use_bias=False)
        self.f2out = keras.layers.Dense(f, activation=ssp)
        self.dense = keras.layers.Dense(f)

    def call(self, x, rbf, idx_i, idx_j, n_atoms):
        W = self.filt2(self.filt1(rbf))
        msg = tf.gather(self.in2f(x), idx_j) * W
        agg = tf.math.unsorted_segment_sum(msg, idx_i, n_atoms)
        return x + self.dense(self.f2out(agg))


class SchNet(keras.Model):
    def __init__(self, n_filters=64, n_interactions=3, cutoff=5.0):
        super().__init__()
        self.embed = keras.layers.Embedding(100, n_filters)
        self.rbf = RBF(cutoff=cutoff)
        self.blocks = [Interaction(n_filters) for _ in range(n_interactions)]
        self.out1 = keras.layers.Dense(n_filters // 2, activation=ssp)
        self.out2 = keras.layers.Dense(1)

    def call(self, z, r, seg, idx_i, idx_j, n_mols):
        n_atoms = tf.shape(z)[0]
        d = tf.norm(tf.gather(r, idx_i) - tf.gather(r, idx_j) + 1e-9, axis=-1)
        rbf = self.rbf(d)
        x = self.embed(z)
        for blk in self.blocks:
            x = blk(x, rbf, idx_i, idx_j, n_atoms)
        atom_e = self.out2(self.out1(x))[:, 0]
        return tf.math.unsorted_segment_sum(atom_e, seg, n_mols)
