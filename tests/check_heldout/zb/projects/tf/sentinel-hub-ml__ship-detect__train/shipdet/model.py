import keras
import tensorflow as tf
from keras import layers


class ShipNet(keras.Model):
    def __init__(self, width=32, **kw):
        super().__init__(**kw)
        w = width
        self.stem = keras.Sequential([layers.Conv2D(w, 3, strides=2, padding="same", activation="relu"),
                                      layers.Conv2D(2 * w, 3, strides=2, padding="same", activation="relu"),
                                      layers.Conv2D(2 * w, 3, padding="same", activation="relu")])
        self.heat = layers.Conv2D(1, 1, bias_initializer=keras.initializers.Constant(-2.19))
        self.size = layers.Conv2D(2, 1, activation="softplus")

    def call(self, x, training=False):
        f = self.stem(x, training=training)
        return tf.concat([self.heat(f), self.size(f)], -1)


def detection_loss(y, out):
    heat_t, size_t = y[..., :1], y[..., 1:]
    heat_l, size_p = out[..., :1], out[..., 1:]
    focal = keras.losses.binary_focal_crossentropy(heat_t, heat_l, from_logits=True, gamma=2.0)
    centres = tf.cast(heat_t > 0.99, tf.float32)
    l1 = tf.reduce_sum(tf.abs(size_p - size_t) * centres) / tf.maximum(tf.reduce_sum(centres), 1.0)
    return tf.reduce_mean(focal) + 0.1 * l1
