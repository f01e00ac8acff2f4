import keras
from keras import layers, ops


class TimeEmbedding(layers.Layer):
    def __init__(self, dim, **kw):
        super().__init__(**kw)
        self.dim = dim

    def call(self, t):
        half = self.dim // 2
        freqs = ops.exp(-9.21 * ops.arange(half, dtype="float32") / half)
        a = ops.cast(t, "float32")[:, None] * freqs[None, :]
        return ops.concatenate([ops.sin(a), ops.cos(a)], axis=-1)


def res_block(x, temb, ch):
    h = layers.GroupNormalization(groups=8)(x)
    h = layers.Conv2D(ch, 3, padding="same", activation="swish")(h)
    h = h + layers.Dense(ch)(temb)[:, None, None, :]
    h = layers.GroupNormalization(groups=8)(h)
    h = layers.Conv2D(ch, 3, padding="same", activation="swish")(h)
    if x.shape[-1] != ch:
        x = layers.Conv2D(ch, 1)(x)
    return x + h


def build_unet(img_size, width):
    x_in = keras.Input((img_size, img_size, 3))
    t_in = keras.Input((), dtype="int32")
    temb = layers.Dense(width * 4, activation="swish")(TimeEmbedding(width)(t_in))
    h1 = res_block(layers.Conv2D(width, 3, padding="same")(x_in), temb, width)
    h2 = res_block(layers.AveragePooling2D(2)(h1), temb, width * 2)
    m = res_block(h2, temb, width * 2)
    u = layers.UpSampling2D()(m)
    u = res_block(layers.Concatenate()([u, h1]), temb, width)
    out = layers.Conv2D(3, 3, padding="same")(u)
    return keras.Model([x_in, t_in], out, name="unet")
