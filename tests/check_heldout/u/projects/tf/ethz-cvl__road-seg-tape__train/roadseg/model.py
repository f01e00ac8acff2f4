import keras
from keras import layers


def _down(x, f):
    x = layers.Conv2D(f, 3, padding="same", activation="relu")(x)
    x = layers.Conv2D(f, 3, padding="same", activation="relu")(x)
    return layers.MaxPooling2D()(x), x


def road_unet(img_size=256, base=24):
    inp = keras.Input((img_size, img_size, 3))
    x, s1 = _down(inp, base)
    x, s2 = _down(x, base * 2)
    x, s3 = _down(x, base * 4)
    x = layers.Conv2D(base * 8, 3, padding="same", activation="relu")(x)
    for s, f in ((s3, base * 4), (s2, base * 2), (s1, base)):
        x = layers.UpSampling2D()(x)
        x = layers.Concatenate()([x, s])
        x = layers.Conv2D(f, 3, padding="same", activation="relu")(x)
    return keras.Model(inp, layers.Conv2D(1, 1)(x), name="road_unet")  # logits
