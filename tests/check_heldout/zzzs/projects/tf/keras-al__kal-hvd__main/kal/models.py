import keras
from keras import layers


def build(d_in, n_cls, hidden=256):
    inp = keras.Input((d_in,))
    h = layers.Dense(hidden, activation="relu")(inp)
    h = layers.Dropout(0.3)(h)
    h = layers.Dense(hidden // 2, activation="relu")(h)
    out = layers.Dense(n_cls, activation="softmax")(h)
    return keras.Model(inp, out)


def make_optimizer(lr):
    return keras.optimizers.SGD(learning_rate=lr, momentum=0.9)
