import keras
from keras import layers


def unet(ny, nx, nv, base=32, levels=3):
    inp = keras.Input((ny, nx, nv))
    skips, h = [], inp
    for i in range(levels):
        h = layers.Conv2D(base * 2 ** i, 3, padding="same", activation="swish")(h)
        h = layers.Conv2D(base * 2 ** i, 3, padding="same", activation="swish")(h)
        skips.append(h)
        h = layers.MaxPooling2D(2, padding="same")(h)
    h = layers.Conv2D(base * 2 ** levels, 3, padding="same", activation="swish")(h)
    for i in reversed(range(levels)):
        h = layers.UpSampling2D(2)(h)
        s = skips[i]
        h = layers.Cropping2D(((0, h.shape[1] - s.shape[1]), (0, h.shape[2] - s.shape[2])))(h)
        h = layers.Concatenate()([h, s])
        h = layers.Conv2D(base * 2 ** i, 3, padding="same", activation="swish")(h)
    out = layers.Conv2D(nv, 1)(h)
    return keras.Model(inp, layers.Add()([inp, out]), name="wrf_unet")
