import keras
from keras import layers


def block(x, ch):
    x = layers.Conv2D(ch, 3, padding="same", activation="gelu")(x)
    return layers.Conv2D(ch, 3, padding="same", activation="gelu")(x)


def build_unet(upscale=4, base=32, patch=16):
    inp = keras.Input((patch, patch, 1))
    x = layers.UpSampling2D(upscale, interpolation="bilinear")(inp)
    e1 = block(x, base)
    e2 = block(layers.MaxPooling2D()(e1), base * 2)
    b = block(layers.MaxPooling2D()(e2), base * 4)
    d2 = block(layers.Concatenate()([layers.UpSampling2D()(b), e2]), base * 2)
    d1 = block(layers.Concatenate()([layers.UpSampling2D()(d2), e1]), base)
    out = layers.Add()([layers.Conv2D(1, 1, dtype="float32")(d1), x])
    return keras.Model(inp, out, name="era5_unet")
