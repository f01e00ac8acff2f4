import math

import keras
from keras import layers, ops


@keras.saving.register_keras_serializable()
def sinusoidal_embedding(x, dim=32, min_freq=1.0, max_freq=1000.0):
    freqs = ops.exp(ops.linspace(math.log(min_freq), math.log(max_freq), dim // 2))
    ang = 2.0 * math.pi * freqs
    return ops.concatenate([ops.sin(ang * x), ops.cos(ang * x)], axis=3)


def residual_block(x, width):
    skip = x if x.shape[3] == width else layers.Conv2D(width, 1)(x)
    x = layers.BatchNormalization(center=False, scale=False)(x)
    x = layers.Conv2D(width, 3, padding="same", activation="swish")(x)
    x = layers.Conv2D(width, 3, padding="same")(x)
    return layers.Add()([x, skip])


def build_unet(image_size, widths, block_depth):
    noisy = keras.Input((image_size, image_size, 3))
    variances = keras.Input((1, 1, 1))
    e = layers.Lambda(sinusoidal_embedding, output_shape=(1, 1, 32))(variances)
    e = layers.UpSampling2D(size=image_size, interpolation="nearest")(e)
    x = layers.Concatenate()([layers.Conv2D(widths[0], 1)(noisy), e])
    skips = []
    for w in widths[:-1]:
        for _ in range(block_depth):
            x = residual_block(x, w)
            skips.append(x)
        x = layers.AveragePooling2D(pool_size=2)(x)
    for _ in range(block_depth):
        x = residual_block(x, widths[-1])
    for w in reversed(widths[:-1]):
        x = layers.UpSampling2D(size=2, interpolation="bilinear")(x)
        for _ in range(block_depth):
            x = residual_block(layers.Concatenate()([x, skips.pop()]), w)
    out = layers.Conv2D(3, 1, kernel_initializer="zeros")(x)
    return keras.Model([noisy, variances], out, name="residual_unet")
