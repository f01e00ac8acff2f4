import keras
from keras import layers


def make_generator(noise_dim, img_size):
    s = img_size // 8
    return keras.Sequential([
        keras.Input((noise_dim,)),
        layers.Dense(s * s * 256, use_bias=False), layers.BatchNormalization(), layers.LeakyReLU(0.2),
        layers.Reshape((s, s, 256)),
        layers.Conv2DTranspose(128, 4, 2, padding="same", use_bias=False), layers.BatchNormalization(), layers.LeakyReLU(0.2),
        layers.Conv2DTranspose(64, 4, 2, padding="same", use_bias=False), layers.BatchNormalization(), layers.LeakyReLU(0.2),
        layers.Conv2DTranspose(3, 4, 2, padding="same", activation="tanh"),
    ], name="generator")


def make_discriminator(img_size):
    return keras.Sequential([
        keras.Input((img_size, img_size, 3)),
        layers.Conv2D(64, 4, 2, padding="same"), layers.LeakyReLU(0.2),
        layers.Conv2D(128, 4, 2, padding="same"), layers.BatchNormalization(), layers.LeakyReLU(0.2),
        layers.Conv2D(256, 4, 2, padding="same"), layers.BatchNormalization(), layers.LeakyReLU(0.2),
        layers.Flatten(), layers.Dropout(0.3), layers.Dense(1),
    ], name="discriminator")
