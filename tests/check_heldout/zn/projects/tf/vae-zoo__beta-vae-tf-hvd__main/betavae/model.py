import tensorflow as tf
from tensorflow.keras import layers


class BetaVAE(tf.keras.Model):
    """Burgess et al. encoder/decoder for 64x64 inputs."""

    def __init__(self, latent_dim=10, channels=1):
        super().__init__()
        self.latent_dim = latent_dim
        self.encoder = tf.keras.Sequential([
            layers.Conv2D(32, 4, 2, "same", activation="relu"),
            layers.Conv2D(32, 4, 2, "same", activation="relu"),
            layers.Conv2D(64, 4, 2, "same", activation="relu"),
            layers.Conv2D(64, 4, 2, "same", activation="relu"),
            layers.Flatten(), layers.Dense(256, activation="relu"),
            layers.Dense(2 * latent_dim),
        ])
        self.decoder = tf.keras.Sequential([
            layers.Dense(256, activation="relu"), layers.Dense(4 * 4 * 64, activation="relu"),
            layers.Reshape((4, 4, 64)),
            layers.Conv2DTranspose(64, 4, 2, "same", activation="relu"),
            layers.Conv2DTranspose(32, 4, 2, "same", activation="relu"),
            layers.Conv2DTranspose(32, 4, 2, "same", activation="relu"),
            layers.Conv2DTranspose(channels, 4, 2, "same"),
        ])

    def call(self, x, training=False):
        mu, logvar = tf.split(self.encoder(x, training=training), 2, axis=-1)
        z = mu + tf.exp(0.5 * logvar) * tf.random.normal(tf.shape(mu))
        return self.decoder(z, training=training), mu, logvar
