import keras
from keras import layers


def conv_trunk(input_shape=(32, 32, 3)):
    inp = keras.Input(input_shape)
    x = inp
    for filters in (96, 192, 192):
        x = layers.Conv2D(filters, 3, padding="same", use_bias=False)(x)
        x = layers.BatchNormalization()(x)
        x = layers.ReLU()(x)
        x = layers.Conv2D(filters, 1, use_bias=False)(x)
        x = layers.BatchNormalization()(x)
        x = layers.ReLU()(x)
        x = layers.MaxPooling2D(padding="same")(x)
    return keras.Model(inp, layers.GlobalAveragePooling2D()(x), name="trunk")


def with_head(trunk, n_out, name, freeze_trunk=False):
    trunk.trainable = not freeze_trunk
    inp = keras.Input(trunk.input_shape[1:])
    feats = trunk(inp, training=not freeze_trunk)
    return keras.Model(inp, layers.Dense(n_out, name=f"{name}_fc")(feats), name=name)
