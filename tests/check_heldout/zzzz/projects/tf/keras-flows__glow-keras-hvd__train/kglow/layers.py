import numpy as np
import tensorflow as tf
import keras


class ActNorm(keras.layers.Layer):
    """per-channel affine with data dependent init (call .data_init(x) once)"""

    def build(self, shape):
        c = shape[-1]
        self.loc = self.add_weight(name="loc", shape=(1, 1, 1, c), initializer="zeros")
        self.logs = self.add_weight(name="logs", shape=(1, 1, 1, c), initializer="zeros")

    def data_init(self, x):
        mean, var = tf.nn.moments(x, axes=[0, 1, 2], keepdims=True)
        self.loc.assign(-mean)
        self.logs.assign(tf.math.log(1.0 / (tf.sqrt(var) + 1e-6)))
        return (x + self.loc) * tf.exp(self.logs)

    def call(self, x):
        hw = tf.cast(tf.shape(x)[1] * tf.shape(x)[2], tf.float32)
        return (x + self.loc) * tf.exp(self.logs), hw * tf.reduce_sum(self.logs)


class Inv1x1(keras.layers.Layer):
    def build(self, shape):
        c = shape[-1]
        w = np.linalg.qr(np.random.randn(c, c))[0].astype("float32")
        self.w = self.add_weight(name="w", shape=(c, c), initializer=keras.initializers.Constant(w))

    def call(self, x):
        hw = tf.cast(tf.shape(x)[1] * tf.shape(x)[2], tf.float32)
        ld = hw * tf.cast(tf.math.log(tf.abs(tf.linalg.det(tf.cast(self.w, tf.float64)))), tf.float32)
        return tf.einsum("bhwc,cd->bhwd", x, self.w), ld


class AffineCoupling(keras.layers.Layer):
    def __init__(self, width, **kw):
        super().__init__(**kw)
        self.width = width

    def build(self, shape):
        c = shape[-1]
        self.nn = keras.Sequential([
            keras.layers.Conv2D(self.width, 3, padding="same", activation="relu"),
            keras.layers.Conv2D(self.width, 1, activation="relu"),
            keras.layers.Conv2D(c, 3, padding="same", kernel_initializer="zeros")])

    def call(self, x):
        a, b = tf.split(x, 2, axis=-1)
        h = self.nn(a)
        shift, s = h[..., 0::2], h[..., 1::2]
        scale = tf.sigmoid(s + 2.0)
        b = (b + shift) * scale
        return tf.concat([a, b], -1), tf.reduce_sum(tf.math.log(scale), axis=[1, 2, 3])


def squeeze2d(x):
    b, h, w, c = x.shape
    x = tf.reshape(x, [-1, h // 2, 2, w // 2, 2, c])
    x = tf.transpose(x, [0, 1, 3, 5, 2, 4])
    return tf.reshape(x, [-1, h // 2, w // 2, c * 4])
