import keras
from keras import layers


def _block(x, f):
    for _ in range(2):
        x = layers.Conv3D(f, 3, padding="same", use_bias=False)(x)
        x = layers.GroupNormalization(groups=4)(x)
        x = layers.Activation("relu")(x)
    return x


def unet3d(patch, in_ch, num_classes, base=16):
    inp = keras.Input((patch, patch, patch, in_ch))
    e1 = _block(inp, base)
    e2 = _block(layers.MaxPool3D()(e1), base * 2)
    b = _block(layers.MaxPool3D()(e2), base * 4)
    d2 = _block(layers.Concatenate()([layers.UpSampling3D()(b), e2]), base * 2)
    d1 = _block(layers.Concatenate()([layers.UpSampling3D()(d2), e1]), base)
    out = layers.Conv3D(num_classes, 1, activation="softmax", dtype="float32")(d1)
    return keras.Model(inp, out, name="unet3d_lite")
