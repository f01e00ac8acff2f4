import numpy as np
import tensorflow as tf
from tensorflow import keras


class FourierFeatures(keras.layers.Layer):
    def __init__(self, n_features=64, scale=2.0, seed=0, **kwargs):
        super().__init__(**kwargs)
        self.n_features, self.scale, self.seed = n_features, scale, seed

    def build(self, input_shape):
        rng = np.random.default_rng(self.seed)
        b = rng.normal(0, self.scale, size=(int(input_shape[-1]), self.n_features)).astype("float32")
        self.B = self.add_weight(name="B", shape=b.shape, initializer=keras.initializers.Constant(b),
                                 trainable=False)

    def call(self, x):
        proj = 2 * np.pi * tf.matmul(x, self.B)
        return tf.concat([tf.sin(proj), tf.cos(proj)], axis=-1)


class WavefieldNet(keras.Model):
    """u(x, z, t) for the 2-D acoustic wave equation."""

    def __init__(self, width=256, depth=6, **kwargs):
        super().__init__(**kwargs)
        self.ff = FourierFeatures()
        self.hidden = [keras.layers.Dense(width, activation="tanh") for _ in range(depth)]
        self.out = keras.layers.Dense(1)

    def call(self, xzt):
        h = self.ff(xzt)
        for layer in self.hidden:
            h = layer(h)
        return self.out(h)
