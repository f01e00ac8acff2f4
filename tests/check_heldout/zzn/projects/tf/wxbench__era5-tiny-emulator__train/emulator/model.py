import keras
from keras import layers


def periodic_pad(x, pad):
    """Wrap in longitude, replicate at the poles."""
    x = keras.ops.concatenate([x[:, :, -pad:], x, x[:, :, :pad]], axis=2)
    return keras.ops.concatenate([x[:, :1]] * pad + [x] + [x[:, -1:]] * pad, axis=1)


def conv_block(x, f, dropout):
    for _ in range(2):
        x = layers.Lambda(lambda t: periodic_pad(t, 1))(x)
        x = layers.Conv2D(f, 3, padding="valid")(x)
        x = layers.LayerNormalization()(x)
        x = layers.Activation("gelu")(x)
    return layers.SpatialDropout2D(dropout)(x)


def build_emulator(shape, filters=(64, 128, 128), dropout=0.1):
    inp = keras.Input(shape)
    x = inp
    for f in filters:
        x = conv_block(x, f, dropout)
    delta = layers.Conv2D(shape[-1], 1, name="tendency")(x)
    out = layers.Add(name="next_state")([inp, delta])
    return keras.Model(inp, out, name="era5_tiny_emulator")
