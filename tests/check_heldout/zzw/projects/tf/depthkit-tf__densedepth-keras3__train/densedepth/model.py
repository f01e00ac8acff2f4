import keras
from keras import layers


def _up(x, skip, filters, name):
    x = layers.UpSampling2D(2, interpolation="bilinear", name=f"{name}_up")(x)
    x = layers.Concatenate(name=f"{name}_cat")([x, skip])
    x = layers.Conv2D(filters, 3, padding="same", activation="relu", name=f"{name}_a")(x)
    return layers.Conv2D(filters, 3, padding="same", activation="relu", name=f"{name}_b")(x)


def build_densedepth(input_shape=(240, 320, 3), width=32):
    """Encoder-decoder with skip connections; predicts depth at half resolution (DenseDepth layout)."""
    inp = keras.Input(input_shape)
    e1 = layers.Conv2D(width, 3, strides=2, padding="same", activation="relu")(inp)
    e2 = layers.Conv2D(2 * width, 3, strides=2, padding="same", activation="relu")(e1)
    e3 = layers.Conv2D(4 * width, 3, strides=2, padding="same", activation="relu")(e2)
    b = layers.Conv2D(4 * width, 3, strides=2, padding="same", activation="relu")(e3)
    d = _up(b, e3, 4 * width, "dec3")
    d = _up(d, e2, 2 * width, "dec2")
    d = _up(d, e1, width, "dec1")
    out = layers.Conv2D(1, 3, padding="same", name="depth")(d)
    return keras.Model(inp, out, name="densedepth")
