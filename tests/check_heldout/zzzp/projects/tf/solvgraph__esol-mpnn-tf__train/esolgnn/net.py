import tensorflow as tf
import keras


class MessagePassing(keras.layers.Layer):
    def __init__(self, dim, **kw):
        super().__init__(**kw)
        self.edge = keras.layers.Dense(dim * dim)
        self.upd = keras.layers.GRUCell(dim)
        self.dim = dim

    def call(self, h, bonds, src, dst):
        A = tf.reshape(self.edge(bonds), (-1, self.dim, self.dim))
        msg = tf.squeeze(tf.matmul(A, tf.expand_dims(tf.gather(h, src), -1)), -1)
        agg = tf.math.unsorted_segment_sum(msg, dst, tf.shape(h)[0])
        h, _ = self.upd(agg, [h])
        return h


class MPNN(keras.Model):
    def __init__(self, hidden=64, steps=3):
        super().__init__()
        self.inp = keras.layers.Dense(hidden, activation="relu")
        self.mp = MessagePassing(hidden)
        self.steps = steps
        self.out1 = keras.layers.Dense(hidden, activation="relu")
        self.out2 = keras.layers.Dense(1)

    def call(self, b):
        h = self.inp(b["atoms"])
        for _ in range(self.steps):
            h = self.mp(h, b["bonds"], b["src"], b["dst"])
        # atoms are grouped by molecule -> sorted segment ids
        g = tf.math.segment_sum(h, b["gid"])
        return tf.squeeze(self.out2(self.out1(g)), -1)
