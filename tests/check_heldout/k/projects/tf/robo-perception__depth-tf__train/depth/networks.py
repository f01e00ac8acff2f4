import keras
import tensorflow as tf
from keras import layers


def _conv(filters, stride=1):
    return layers.Conv2D(filters, 3, strides=stride, padding="same", activation="elu")


class DepthNet(keras.Model):
    """U-Net style encoder/decoder predicting inverse depth (sigmoid disparity)."""

    def __init__(self, widths=(32, 64, 128, 256, 256)):
        super().__init__()
        self.enc = [(_conv(w, 2), _conv(w)) for w in widths]
        self.dec = [(layers.UpSampling2D(), _conv(w), _conv(w)) for w in reversed(widths[:-1])]
        self.up_last = layers.UpSampling2D()
        self.disp = layers.Conv2D(1, 3, padding="same", activation="sigmoid")

    def call(self, x):
        skips = []
        for down, conv in self.enc:
            x = conv(down(x))
            skips.append(x)
        skips.pop()
        for up, conv_a, conv_b in self.dec:
            x = conv_b(tf.concat([conv_a(up(x)), skips.pop()], -1))
        return self.disp(self.up_last(x))


class PoseNet(keras.Model):
    """Relative camera motion (axis-angle + translation) between two frames."""

    def __init__(self):
        super().__init__()
        self.convs = [_conv(w, 2) for w in (16, 32, 64, 128, 256, 256)]
        self.out = layers.Conv2D(6, 1)

    def call(self, pair):
        x = pair
        for conv in self.convs:
            x = conv(x)
        return 0.01 * tf.reduce_mean(self.out(x), axis=[1, 2])
