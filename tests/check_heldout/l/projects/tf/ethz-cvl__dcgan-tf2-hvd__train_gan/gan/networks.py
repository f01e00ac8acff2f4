from tensorflow import keras


def make_generator(latent_dim=128, base=64):
    return keras.Sequential([
        keras.Input((latent_dim,)),
        keras.layers.Dense(4 * 4 * base * 8, use_bias=False),
        keras.layers.BatchNormalization(),
        keras.layers.LeakyReLU(0.2),
        keras.layers.Reshape((4, 4, base * 8)),
        keras.layers.Conv2DTranspose(base * 4, 4, 2, "same", use_bias=False),
        keras.layers.BatchNormalization(),
        keras.layers.LeakyReLU(0.2),
        keras.layers.Conv2DTranspose(base * 2, 4, 2, "same", use_bias=False),
        keras.layers.BatchNormalization(),
        keras.layers.LeakyReLU(0.2),
        keras.layers.Conv2DTranspose(base, 4, 2, "same", use_bias=False),
        keras.layers.BatchNormalization(),
        keras.layers.LeakyReLU(0.2),
        keras.layers.Conv2DTranspose(3, 4, 2, "same", activation="tanh"),
    ], name="generator")


def make_discriminator(base=64):
    return keras.Sequential([
        keras.Input((64, 64, 3)),
        keras.layers.Conv2D(base, 4, 2, "same"),
        keras.layers.LeakyReLU(0.2),
        keras.layers.Conv2D(base * 2, 4, 2, "same"),
        keras.layers.BatchNormalization(),
        keras.layers.LeakyReLU(0.2),
        keras.layers.Conv2D(base * 4, 4, 2, "same"),
        keras.layers.BatchNormalization(),
        keras.layers.LeakyReLU(0.2),
        keras.layers.Conv2D(base * 8, 4, 2, "same"),
        keras.layers.BatchNormalization(),
        keras.layers.LeakyReLU(0.2),
        keras.layers.Flatten(),
        keras.layers.Dense(1),
    ], name="discriminator")
