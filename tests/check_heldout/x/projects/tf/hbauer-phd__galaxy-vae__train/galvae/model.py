import tensorflow as tf
from tensorflow.keras import layers


class ConvVAE(tf.keras.Model):
    def __init__(self, latent_dim=16, beta=4.0, img=64, channels=3):
        super().__init__()
        self.beta = beta
        self.encoder = tf.keras.Sequential([
            layers.Conv2D(32, 4, 2, "same", activation="relu"),
            layers.Conv2D(64, 4, 2, "same", activation="relu"),
            layers.Flatten(),
            layers.Dense(2 * latent_dim),
        ])
        s = img // 4
        self.decoder = tf.keras.Sequential([
            layers.Dense(s * s * 64, activation="relu"),
            layers.Reshape((s, s, 64)),
            layers.Conv2DTranspose(32, 4, 2, "same", activation="relu"),
            layers.Conv2DTranspose(channels, 4, 2, "same", activation="sigmoid"),
        ])

    def call(self, x, training=False):
        mu, logvar = tf.split(self.encoder(x, training=training), 2, axis=-1)
        z = mu + tf.exp(0.5 * logvar) * tf.random.normal(tf.shape(mu)) if training else mu
        return self.decoder(z, training=training), mu, logvar

    def elbo_loss(self, x, training=False):
        recon, mu, logvar = self(x, training=training)
        rec = tf.reduce_mean(tf.reduce_sum(tf.square(x - recon), axis=[1, 2, 3]))
        kl = tf.reduce_mean(-0.5 * tf.reduce_sum(1 + logvar - tf.square(mu) - tf.exp(logvar), axis=1))
        return rec + self.beta * kl
