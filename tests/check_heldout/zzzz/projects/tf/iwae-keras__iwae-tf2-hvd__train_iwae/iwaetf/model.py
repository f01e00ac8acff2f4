import math
import tensorflow as tf
import keras


class IWAE(keras.Model):
    def __init__(self, latent=50, hidden=200):
        super().__init__()
        self.enc = keras.Sequential([keras.layers.Dense(hidden, activation="tanh"),
                                     keras.layers.Dense(hidden, activation="tanh"),
                                     keras.layers.Dense(2 * latent)])
        self.dec = keras.Sequential([keras.layers.Dense(hidden, activation="tanh"),
                                     keras.layers.Dense(hidden, activation="tanh"),
                                     keras.layers.Dense(784)])

    def log_w(self, x, k, beta=1.0):
        mu, logstd = tf.split(self.enc(x), 2, -1)
        eps = tf.random.normal(tf.concat([[k], tf.shape(mu)], 0))
        z = mu + eps * tf.exp(logstd)
        logits = self.dec(z)
        lpx = -tf.reduce_sum(tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.broadcast_to(x, tf.shape(logits)),
                                                                     logits=logits), -1)
        lpz = tf.reduce_sum(-0.5 * z ** 2 - 0.5 * math.log(2 * math.pi), -1)
        lqz = tf.reduce_sum(-0.5 * eps ** 2 - logstd - 0.5 * math.log(2 * math.pi), -1)
        return lpx + beta * (lpz - lqz)

    def iwae_bound(self, x, k, beta=1.0):
        lw = self.log_w(x, k, beta)
        return tf.reduce_logsumexp(lw, 0) - math.log(float(k))
