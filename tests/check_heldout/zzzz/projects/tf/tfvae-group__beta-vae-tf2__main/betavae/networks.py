import tensorflow as tf
import keras
from keras import layers


def encoder(latent_dim):
    return keras.Sequential([
        keras.Input((64, 64, 1)),
        layers.Conv2D(32, 4, 2, "same", activation="relu"),
        layers.Conv2D(32, 4, 2, "same", activation="relu"),
        layers.Conv2D(64, 4, 2, "same", activation="relu"),
        layers.Conv2D(64, 4, 2, "same", activation="relu"),
        layers.Flatten(), layers.Dense(256, activation="relu"),
        layers.Dense(2 * latent_dim)], name="encoder")


def decoder(latent_dim):
    return keras.Sequential([
        keras.Input((latent_dim,)),
        layers.Dense(256, activation="relu"), layers.Dense(4 * 4 * 64, activation="relu"),
        layers.Reshape((4, 4, 64)),
        layers.Conv2DTranspose(64, 4, 2, "same", activation="relu"),
        layers.Conv2DTranspose(32, 4, 2, "same", activation="relu"),
        layers.Conv2DTranspose(32, 4, 2, "same", activation="relu"),
        layers.Conv2DTranspose(1, 4, 2, "same")], name="decoder")


class BetaVAE(keras.Model):
    def __init__(self, latent_dim=10):
        super().__init__()
        self.enc = encoder(latent_dim)
        self.dec = decoder(latent_dim)
        self.latent_dim = latent_dim

    def call(self, x):
        mu, logvar = tf.split(self.enc(x), 2, axis=-1)
        z = mu + tf.exp(0.5 * logvar) * tf.random.normal(tf.shape(mu))
        logits = self.dec(z)
        rec = tf.reduce_sum(tf.nn.sigmoid_cross_entropy_with_logits(labels=x, logits=logits), [1, 2, 3])
        kl = 0.5 * tf.reduce_sum(tf.exp(logvar) + mu ** 2 - 1.0 - logvar, -1)
        return rec, kl

    def sample(self, n):
        return tf.sigmoid(self.dec(tf.random.normal([n, self.latent_dim])))
