import keras
from keras import layers


def make_generator(latent_dim, size):
    s = size // 8
    return keras.Sequential([
        keras.Input((latent_dim,)),
        layers.Dense(s * s * 256, use_bias=False), layers.BatchNormalization(), layers.ReLU(),
        layers.Reshape((s, s, 256)),
        layers.Conv2DTranspose(128, 4, 2, "same", use_bias=False), layers.BatchNormalization(), layers.ReLU(),
        layers.Conv2DTranspose(64, 4, 2, "same", use_bias=False), layers.BatchNormalization(), layers.ReLU(),
        layers.Conv2DTranspose(3, 4, 2, "same", activation="tanh"),
    ], name="generator")


def make_critic(size):
    return keras.Sequential([
        keras.Input((size, size, 3)),
        layers.Conv2D(64, 4, 2, "same"), layers.LeakyReLU(0.2),
        layers.Conv2D(128, 4, 2, "same"), layers.LayerNormalization(), layers.LeakyReLU(0.2),
        layers.Conv2D(256, 4, 2, "same"), layers.LayerNormalization(), layers.LeakyReLU(0.2),
        layers.Flatten(), layers.Dense(1),
    ], name="critic")
