import tensorflow as tf
import keras


class DenseMPNN(keras.Model):
    """message passing on padded molecules: (B, A) atoms, all pairs inside the cutoff"""

    def __init__(self, hidden=128, layers=4, cutoff=5.0, n_gauss=50, **kw):
        super().__init__(**kw)
        self.cutoff = cutoff
        self.centers = tf.linspace(0.0, cutoff, n_gauss)
        self.embed = keras.layers.Embedding(100, hidden)
        self.filters = [keras.layers.Dense(hidden, activation="tanh") for _ in range(layers)]
        self.updates = [keras.layers.Dense(hidden, activation="silu") for _ in range(layers)]
        self.norms = [keras.layers.LayerNormalization() for _ in range(layers)]
        self.readout = keras.Sequential([keras.layers.Dense(hidden, activation="silu"), keras.layers.Dense(1)])

    def call(self, inputs):
        Z, R, mask = inputs["Z"], inputs["R"], inputs["mask"]
        d = tf.norm(R[:, :, None] - R[:, None] + 1e-9, axis=-1)
        pair = mask[:, :, None] * mask[:, None, :] * (1.0 - tf.eye(tf.shape(Z)[1]))
        pair = pair * tf.cast(d < self.cutoff, tf.float32)
        g = tf.exp(-5.0 * (d[..., None] - self.centers) ** 2)
        h = self.embed(Z)
        for filt, upd, norm in zip(self.filters, self.updates, self.norms):
            w = filt(g) * pair[..., None]
            m = tf.reduce_sum(w * h[:, None, :, :], axis=2)
            h = norm(h + upd(m)) * mask[..., None]
        return tf.squeeze(self.readout(tf.reduce_sum(h, axis=1)), -1)
