import keras
from keras import layers


def yield_net(input_shape, hidden=(256, 128), dropout=0.1):
    inp = keras.Input(shape=input_shape)
    x = layers.Flatten()(inp)
    for h in hidden:
        x = layers.Dense(h, activation="gelu")(x)
        x = layers.LayerNormalization()(x)
        x = layers.Dropout(dropout)(x)
    return keras.Model(inp, layers.Dense(1)(x))


def build_optimizer(name, lr):
    name = name.lower()
    if name == "adam":
        return keras.optimizers.Adam(learning_rate=lr)
    if name == "adamw":
        return keras.optimizers.AdamW(learning_rate=lr, weight_decay=1e-4)
    if name == "sgd":
        return keras.optimizers.SGD(learning_rate=lr, momentum=0.9)
    raise ValueError(f"unknown optimizer {name!r}")
