import tensorflow as tf

L = tf.keras.layers

MODEL_ZOO = {}
OPTIMIZERS = {
    "adam": tf.keras.optimizers.Adam,
    "adamw": tf.keras.optimizers.AdamW,
    "sgd": tf.keras.optimizers.SGD,
}


def register(name):
    def deco(fn):
        MODEL_ZOO[name] = fn
        return fn
    return deco


def _block(x, w):
    x = L.Conv2D(w, 3, padding="same", activation="relu")(x)
    return L.Conv2D(w, 3, padding="same", activation="relu")(x)


@register("unet_small")
def unet_small(n_classes=6, width=16, tile=64):
    inp = tf.keras.Input((tile, tile, 3))
    c1 = _block(inp, width)
    p1 = L.MaxPooling2D()(c1)
    c2 = _block(p1, width * 2)
    u1 = L.UpSampling2D()(c2)
    c3 = _block(L.Concatenate()([u1, c1]), width)
    out = L.Conv2D(n_classes, 1)(c3)
    return tf.keras.Model(inp, out, name="unet_small")


@register("fcn_tiny")
def fcn_tiny(n_classes=6, width=16, tile=64):
    inp = tf.keras.Input((tile, tile, 3))
    x = _block(inp, width)
    return tf.keras.Model(inp, L.Conv2D(n_classes, 1)(x), name="fcn_tiny")
