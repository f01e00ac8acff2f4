import tensorflow as tf
import keras
from keras import layers


class Sampling(layers.Layer):
    def call(self, inputs):
        mu, logvar = inputs
        eps = tf.random.normal(tf.shape(mu))
        return mu + tf.exp(0.5 * logvar) * eps


class VAE(keras.Model):
    def __init__(self, n_features, latent_dim=6, hidden=(64, 32), **kw):
        super().__init__(**kw)
        self.enc = keras.Sequential([layers.Dense(h, activation="relu") for h in hidden])
        self.mu = layers.Dense(latent_dim)
        self.logvar = layers.Dense(latent_dim)
        self.sample = Sampling()
        self.dec = keras.Sequential([layers.Dense(h, activation="relu") for h in reversed(hidden)]
                                    + [layers.Dense(n_features)])

    def call(self, x, training=False):
        h = self.enc(x)
        mu, logvar = self.mu(h), self.logvar(h)
        z = self.sample([mu, logvar]) if training else mu
        return self.dec(z), mu, logvar


def elbo_terms(x, recon, mu, logvar):
    rec = tf.reduce_sum(tf.square(x - recon), axis=1)
    kl = -0.5 * tf.reduce_sum(1.0 + logvar - tf.square(mu) - tf.exp(logvar), axis=1)
    return rec, kl
