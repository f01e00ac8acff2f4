import keras
import tensorflow as tf


class DeepFM(keras.Model):
    def __init__(self, vocab_sizes, k=16, hidden=(400, 400, 400), **kw):
        super().__init__(**kw)
        self.first = [keras.layers.Embedding(v, 1) for v in vocab_sizes]
        self.second = [keras.layers.Embedding(v, k) for v in vocab_sizes]
        self.dense_proj = keras.layers.Dense(k)
        self.dense_lin = keras.layers.Dense(1)
        self.mlp = keras.Sequential([keras.layers.Dense(h, activation="relu") for h in hidden]
                                    + [keras.layers.Dense(1)])

    def call(self, inputs, training=False):
        dense, sparse = inputs
        lin = self.dense_lin(dense) + tf.add_n([e(sparse[:, i]) for i, e in enumerate(self.first)])
        v = tf.stack([e(sparse[:, i]) for i, e in enumerate(self.second)] + [self.dense_proj(dense)], axis=1)
        fm = 0.5 * tf.reduce_sum(tf.square(tf.reduce_sum(v, 1)) - tf.reduce_sum(tf.square(v), 1), 1,
                                 keepdims=True)
        deep = self.mlp(tf.reshape(v, [tf.shape(v)[0], -1]), training=training)
        return tf.squeeze(lin + fm + deep, axis=1)
