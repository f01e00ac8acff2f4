import tensorflow as tf
from tensorflow.keras import layers


def _block(x, f):
    x = layers.Conv2D(f, 3, padding="same", activation="elu")(x)
    return layers.Conv2D(f, 3, padding="same", activation="elu")(x)


def build_fractal_unet(tile=128, channels=12, base=24):
    inp = tf.keras.Input((tile, tile, channels))
    e1 = _block(inp, base)
    e2 = _block(layers.MaxPooling2D()(e1), 2 * base)
    e3 = _block(layers.MaxPooling2D()(e2), 4 * base)
    d2 = _block(layers.Concatenate()([layers.UpSampling2D()(e3), e2]), 2 * base)
    d1 = _block(layers.Concatenate()([layers.UpSampling2D()(d2), e1]), base)
    out = layers.Conv2D(2, 1, name="extent_boundary")(d1)       # logits
    return tf.keras.Model(inp, out, name="fractal_unet_lite")
