import keras
from keras import layers

BUILDERS = {}


def builder(name):
    def deco(fn):
        BUILDERS[name] = fn
        return fn
    return deco


@builder("cnn")
def cnn(input_shape=(28, 28, 1), n_classes=10):
    return keras.Sequential([
        keras.Input(input_shape),
        layers.Conv2D(32, 3, activation="relu"), layers.MaxPooling2D(),
        layers.Conv2D(64, 3, activation="relu"), layers.MaxPooling2D(),
        layers.Flatten(), layers.Dropout(0.3), layers.Dense(n_classes, activation="softmax"),
    ])


@builder("mlp")
def mlp(input_shape=(28, 28, 1), n_classes=10):
    return keras.Sequential([keras.Input(input_shape), layers.Flatten(),
                             layers.Dense(256, activation="relu"), layers.Dense(n_classes, activation="softmax")])


def build(name, **kw):
    return BUILDERS[name](**kw)
