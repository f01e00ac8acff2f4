import keras
from keras import layers


def _conv(x, f):
    x = layers.Conv2D(f, 3, padding="same", use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    return layers.Activation("relu")(x)


def unet(n_classes=21, base=16, image_size=256):
    inp = keras.Input((image_size, image_size, 3))
    e1 = _conv(_conv(inp, base), base)
    e2 = _conv(_conv(layers.MaxPooling2D()(e1), base * 2), base * 2)
    b = _conv(_conv(layers.MaxPooling2D()(e2), base * 4), base * 4)
    d2 = _conv(layers.Concatenate()([layers.UpSampling2D()(b), e2]), base * 2)
    d1 = _conv(layers.Concatenate()([layers.UpSampling2D()(d2), e1]), base)
    out = layers.Conv2D(n_classes, 1)(d1)
    return keras.Model(inp, out, name="unet")


def fcn_tiny(n_classes=21, base=16, image_size=256):
    inp = keras.Input((image_size, image_size, 3))
    x = _conv(inp, base)
    x = _conv(x, base)
    return keras.Model(inp, layers.Conv2D(n_classes, 1)(x), name="fcn_tiny")


MODEL_ZOO = {"unet": unet, "fcn_tiny": fcn_tiny}

OPTIMIZERS = {"adam": keras.optimizers.Adam, "sgd": keras.optimizers.SGD, "adamw": keras.optimizers.AdamW}


def get_optimizer(ocfg):
    kw = {k: v for k, v in ocfg.items() if k not in ("name", "lr")}
    return OPTIMIZERS[ocfg["name"]](learning_rate=ocfg["lr"], **kw)
