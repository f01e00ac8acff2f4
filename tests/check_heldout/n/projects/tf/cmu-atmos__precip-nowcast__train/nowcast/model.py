import keras
from keras import layers


def build_unet3d(t_in=6, t_out=6, base=16):
    """Frames stacked on channels (time as features), 2-D U-Net, predicts t_out frames."""
    inp = keras.Input((t_in, None, None, 1))
    x = layers.Permute((2, 3, 1, 4))(inp)
    x = layers.Lambda(lambda z: keras.ops.squeeze(z, -1))(x)
    skips = []
    for d in range(3):
        x = layers.Conv2D(base * 2 ** d, 3, padding="same", activation="relu")(x)
        x = layers.Conv2D(base * 2 ** d, 3, padding="same", activation="relu")(x)
        skips.append(x)
        x = layers.MaxPooling2D()(x)
    x = layers.Conv2D(base * 8, 3, padding="same", activation="relu")(x)
    for d in reversed(range(3)):
        x = layers.UpSampling2D()(x)
        x = layers.Concatenate()([x, skips[d]])
        x = layers.Conv2D(base * 2 ** d, 3, padding="same", activation="relu")(x)
    x = layers.Conv2D(t_out, 1, activation="sigmoid")(x)
    out = layers.Lambda(lambda z: keras.ops.expand_dims(keras.ops.transpose(z, (0, 3, 1, 2)), -1))(x)
    return keras.Model(inp, out, name="nowcast_unet")
