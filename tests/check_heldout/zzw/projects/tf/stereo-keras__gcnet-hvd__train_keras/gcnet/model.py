import keras
import tensorflow as tf
from keras import layers


class CostVolume(layers.Layer):
    def __init__(self, max_disp, **kw):
        super().__init__(**kw)
        self.max_disp = max_disp

    def call(self, inputs):
        left, right = inputs
        vols = []
        for d in range(self.max_disp):
            shifted = tf.pad(right[:, :, : tf.shape(right)[2] - d], [[0, 0], [0, 0], [d, 0], [0, 0]])
            vols.append(tf.concat([left, shifted], -1))
        return tf.stack(vols, 1)  # B x D x H x W x 2C


class SoftArgmin(layers.Layer):
    def call(self, cost):
        prob = tf.nn.softmax(-cost, axis=1)
        disp = tf.cast(tf.range(tf.shape(cost)[1]), cost.dtype)[None, :, None, None]
        return tf.reduce_sum(prob * disp, 1)[..., None]


def build_gcnet(h, w, max_disp, f=16):
    unary = keras.Sequential([layers.Conv2D(f, 5, strides=2, padding="same", activation="relu"),
                              layers.Conv2D(f, 3, padding="same", activation="relu"),
                              layers.Conv2D(f, 3, padding="same")], name="unary")
    left, right = keras.Input((h, w, 3), name="left"), keras.Input((h, w, 3), name="right")
    cost = CostVolume(max_disp // 2)([unary(left), unary(right)])
    x = layers.Conv3D(f, 3, padding="same", activation="relu")(cost)
    x = layers.Conv3D(f, 3, padding="same", activation="relu")(x)
    x = layers.Conv3DTranspose(1, 3, strides=2, padding="same")(x)  # back to full D, H, W
    disp = SoftArgmin(name="disp")(layers.Reshape((max_disp, h, w))(x))
    return keras.Model([left, right], disp, name="gcnet")
