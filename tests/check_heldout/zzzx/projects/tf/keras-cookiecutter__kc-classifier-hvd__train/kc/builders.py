import keras
from keras import layers


def small_cnn(num_classes=10, width=32, input_shape=(32, 32, 3)):
    inp = keras.Input(shape=input_shape)
    x = inp
    for mult in (1, 2, 4):
        x = layers.Conv2D(width * mult, 3, padding="same", activation="relu")(x)
        x = layers.BatchNormalization()(x)
        x = layers.MaxPooling2D()(x)
    x = layers.GlobalAveragePooling2D()(x)
    out = layers.Dense(num_classes)(x)
    return keras.Model(inp, out, name="small_cnn")


def mlp(num_classes=10, width=256, input_shape=(32, 32, 3)):
    return keras.Sequential([keras.Input(shape=input_shape), layers.Flatten(),
                             layers.Dense(width, activation="relu"), layers.Dense(num_classes)])


MODELS = {"small_cnn": small_cnn, "mlp": mlp}

OPTIMIZERS = {
    "sgd": lambda lr, momentum=0.0, **kw: keras.optimizers.SGD(learning_rate=lr, momentum=momentum),
    "adam": lambda lr, **kw: keras.optimizers.Adam(learning_rate=lr),
}


def build_model(mcfg):
    kw = dict(mcfg)
    return MODELS[kw.pop("name")](**kw)


def build_optimizer(ocfg, lr_scale=1.0):
    kw = dict(ocfg)
    name = kw.pop("name")
    lr = kw.pop("learning_rate") * lr_scale
    return OPTIMIZERS[name](lr, **kw)
