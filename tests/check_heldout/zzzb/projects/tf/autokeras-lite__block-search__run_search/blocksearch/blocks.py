import keras
from keras import layers


def _vanilla(x, f, k):
    x = layers.Conv2D(f, k, padding="same", activation="relu")(x)
    return layers.Conv2D(f, k, padding="same", activation="relu")(x)


def _resnet(x, f, k):
    shortcut = x if x.shape[-1] == f else layers.Conv2D(f, 1, padding="same")(x)
    y = layers.Conv2D(f, k, padding="same")(x)
    y = layers.BatchNormalization()(y)
    y = layers.ReLU()(y)
    y = layers.Conv2D(f, k, padding="same")(y)
    y = layers.BatchNormalization()(y)
    return layers.ReLU()(layers.Add()([shortcut, y]))


def _xception(x, f, k):
    y = layers.SeparableConv2D(f, k, padding="same", activation="relu")(x)
    return layers.SeparableConv2D(f, k, padding="same", activation="relu")(y)


BLOCKS = {"vanilla": _vanilla, "resnet": _resnet, "xception": _xception}


def build_from_spec(spec, input_shape=(32, 32, 3), num_classes=10):
    inp = keras.Input(input_shape)
    x = layers.Rescaling(1.0 / 255)(inp)
    f = spec["stem_filters"]
    x = layers.Conv2D(f, 3, padding="same", activation="relu")(x)
    for i in range(spec["num_blocks"]):
        x = BLOCKS[spec["block_type"]](x, f * (2 ** (i // 2)), spec["kernel_size"])
        if i % 2 == 1:
            x = layers.MaxPooling2D()(x)
    x = layers.GlobalAveragePooling2D()(x)
    x = layers.Dropout(spec["head_dropout"])(x)
    return keras.Model(inp, layers.Dense(num_classes, activation="softmax")(x))
