import keras
from keras import layers

BACKBONES = {}


def register(name):
    def deco(fn):
        BACKBONES[name] = fn
        return fn
    return deco


@register("small_cnn")
def small_cnn(input_shape, num_classes, dropout):
    inp = keras.Input(input_shape)
    x = layers.Rescaling(1.0 / 255)(inp)
    for filters in (32, 64, 128):
        x = layers.Conv2D(filters, 3, padding="same", use_bias=False)(x)
        x = layers.BatchNormalization()(x)
        x = layers.Activation("relu")(x)
        x = layers.MaxPooling2D()(x)
    x = layers.GlobalAveragePooling2D()(x)
    x = layers.Dropout(dropout)(x)
    # keep the softmax in float32 under mixed precision
    out = layers.Dense(num_classes, activation="softmax", dtype="float32")(x)
    return keras.Model(inp, out, name="small_cnn")


def build_model(mcfg, input_shape):
    if mcfg.backbone not in BACKBONES:
        raise ValueError(f"unknown backbone {mcfg.backbone}; have {sorted(BACKBONES)}")
    return BACKBONES[mcfg.backbone](input_shape, mcfg.num_classes, mcfg.dropout)
