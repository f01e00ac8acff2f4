import math

import keras
import tensorflow as tf
from keras import layers


class TimeEmbedding(layers.Layer):
    def __init__(self, dim, **kw):
        super().__init__(**kw)
        self.dim = dim

    def call(self, t):
        half = self.dim // 2
        freqs = tf.exp(-math.log(10000.0) * tf.range(half, dtype=tf.float32) / half)
        args = tf.cast(t, tf.float32)[:, None] * freqs[None]
        return tf.concat([tf.sin(args), tf.cos(args)], axis=-1)


def res_block(x, temb, ch):
    h = layers.Conv2D(ch, 3, padding="same", activation="swish")(layers.GroupNormalization(8)(x))
    h = h + layers.Dense(ch)(temb)[:, None, None, :]
    h = layers.Conv2D(ch, 3, padding="same")(layers.Activation("swish")(layers.GroupNormalization(8)(h)))
    skip = x if x.shape[-1] == ch else layers.Conv2D(ch, 1)(x)
    return h + skip


def build_denoiser(image_size=32, ch=64):
    x_in = keras.Input((image_size, image_size, 3))
    t_in = keras.Input((), dtype="int32")
    temb = layers.Dense(ch * 4, activation="swish")(TimeEmbedding(ch)(t_in))
    h1 = res_block(layers.Conv2D(ch, 3, padding="same")(x_in), temb, ch)
    h2 = res_block(layers.AveragePooling2D(2)(h1), temb, ch * 2)
    h3 = res_block(layers.AveragePooling2D(2)(h2), temb, ch * 2)
    u2 = res_block(layers.Concatenate()([layers.UpSampling2D()(h3), h2]), temb, ch * 2)
    u1 = res_block(layers.Concatenate()([layers.UpSampling2D()(u2), h1]), temb, ch)
    out = layers.Conv2D(3, 3, padding="same")(layers.Activation("swish")(layers.GroupNormalization(8)(u1)))
    return keras.Model([x_in, t_in], out, name="denoiser")
