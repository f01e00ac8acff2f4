import keras
from keras import layers


def siamese_change_net(filters=32, size=64):
    encoder = keras.Sequential([
        keras.Input((size, size, 3)),
        layers.Conv2D(filters, 3, activation="relu", padding="same"), layers.MaxPooling2D(),
        layers.Conv2D(2 * filters, 3, activation="relu", padding="same"), layers.GlobalAveragePooling2D(),
    ], name="encoder")
    before, after = keras.Input((size, size, 3)), keras.Input((size, size, 3))
    fb, fa = encoder(before), encoder(after)
    x = layers.concatenate([fb, fa, layers.subtract([fa, fb])])
    x = layers.Dense(64, activation="relu")(x)
    return keras.Model([before, after], layers.Dense(1)(x), name="siamese_change")
