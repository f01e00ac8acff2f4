import tensorflow as tf
import keras


def atomic_net(widths=(160, 128, 96)):
    layers = [keras.layers.Dense(w, activation="celu") for w in widths]
    return keras.Sequential(layers + [keras.layers.Dense(1)])


class ANIModel(keras.Model):
    def __init__(self, aev, n_species, **kw):
        super().__init__(**kw)
        self.aev = aev
        self.n_species = n_species
        self.nets = [atomic_net() for _ in range(n_species)]

    def call(self, species, pos, seg, n_mol):
        g = self.aev(species, pos, seg)
        e = tf.zeros([tf.shape(pos)[0]])
        for t, net in enumerate(self.nets):
            m = tf.cast(tf.equal(species, t), tf.float32)
            e = e + tf.squeeze(net(g), -1) * m
        return tf.math.unsorted_segment_sum(e, seg, n_mol)
