import keras
from keras import layers, ops


def build_score_model(img_size=32, nf=64):
    x = keras.Input((img_size, img_size, 3))
    t = keras.Input(())
    temb = layers.Dense(nf * 4, activation="swish")(ops.log(t)[:, None] * ops.ones((1, nf)))
    h = layers.Conv2D(nf, 3, padding="same")(x)
    for mult in (1, 2, 1):
        r = layers.GroupNormalization(groups=8)(h)
        r = layers.Conv2D(nf * mult, 3, padding="same", activation="swish")(r)
        r = r + layers.Dense(nf * mult)(temb)[:, None, None, :]
        r = layers.Conv2D(nf, 3, padding="same")(r)
        h = h + r
    out = layers.Conv2D(3, 3, padding="same")(layers.Activation("swish")(layers.GroupNormalization(groups=8)(h)))
    return keras.Model([x, t], out)
