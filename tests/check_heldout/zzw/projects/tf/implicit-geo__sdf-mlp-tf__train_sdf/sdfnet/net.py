import numpy as np
import tensorflow as tf
import keras


class GeometricInit(keras.initializers.Initializer):
    """Sphere initialisation of the last layer (Atzmon & Lipman, SAL)."""

    def __init__(self, fan_in, radius=1.0):
        self.fan_in, self.radius = fan_in, radius

    def __call__(self, shape, dtype=None):
        return tf.random.normal(shape, mean=np.sqrt(np.pi) / np.sqrt(self.fan_in), stddev=1e-5, dtype=dtype)


class SDFNet(keras.Model):
    def __init__(self, width=256, depth=6, n_freqs=6, radius=1.0):
        super().__init__()
        self.n_freqs = n_freqs
        self.hidden = [keras.layers.Dense(width, activation="softplus") for _ in range(depth)]
        self.out = keras.layers.Dense(1, kernel_initializer=GeometricInit(width),
                                      bias_initializer=keras.initializers.Constant(-radius))

    def encode(self, x):
        feats = [x]
        for k in range(self.n_freqs):
            feats += [tf.sin((2.0 ** k) * np.pi * x), tf.cos((2.0 ** k) * np.pi * x)]
        return tf.concat(feats, -1)

    def call(self, x):
        h = self.encode(x)
        for layer in self.hidden:
            h = layer(h)
        return self.out(h)[:, 0]
