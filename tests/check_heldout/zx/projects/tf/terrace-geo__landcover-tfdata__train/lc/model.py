import tensorflow as tf
from tensorflow.keras import layers

from lc.data import BANDS, CHIP


def _encoder():
    inp = tf.keras.Input((CHIP, CHIP, BANDS))
    x, skips = inp, []
    for f in (32, 64, 128):
        x = layers.Conv2D(f, 3, padding="same", activation="relu")(x)
        x = layers.Conv2D(f, 3, padding="same", activation="relu")(x)
        skips.append(x)
        x = layers.MaxPool2D()(x)
    return tf.keras.Model(inp, [x] + skips, name="encoder")


def build_segnet(num_classes):
    enc = _encoder()
    inp = tf.keras.Input((CHIP, CHIP, BANDS))
    x, *skips = enc(inp)
    for f, skip in zip((128, 64, 32), reversed(skips)):
        x = layers.UpSampling2D()(x)
        x = layers.Concatenate()([x, skip])
        x = layers.Conv2D(f, 3, padding="same", activation="relu")(x)
    out = layers.Conv2D(num_classes, 1)(x)
    return tf.keras.Model(inp, out, name="segnet")
