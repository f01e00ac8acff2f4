import keras
from keras import layers


def make_generator(z_dim=128, base=256):
    z = keras.Input((z_dim,))
    x = layers.Dense(4 * 4 * base)(z)
    x = layers.Reshape((4, 4, base))(x)
    for ch in (base, base // 2, base // 4):
        x = layers.UpSampling2D()(x)
        x = layers.Conv2D(ch, 3, padding="same")(x)
        x = layers.BatchNormalization()(x)
        x = layers.ReLU()(x)
    out = layers.Conv2D(3, 3, padding="same", activation="tanh")(x)
    return keras.Model(z, out, name="generator")


def make_critic(base=64, size=32):
    img = keras.Input((size, size, 3))
    x = img
    for ch in (base, base * 2, base * 4):
        x = layers.Conv2D(ch, 4, 2, padding="same")(x)
        x = layers.LayerNormalization()(x)
        x = layers.LeakyReLU(0.2)(x)
    x = layers.Flatten()(x)
    return keras.Model(img, layers.Dense(1)(x), name="critic")
