import keras
import tensorflow as tf


class DIN(keras.Model):
    """Deep Interest Network, reduced: attention of the candidate over the click history."""

    def __init__(self, n_users, n_items, dim=32, **kw):
        super().__init__(**kw)
        self.user_emb = keras.layers.Embedding(n_users, dim)
        self.item_emb = keras.layers.Embedding(n_items, dim)
        self.att = keras.Sequential([keras.layers.Dense(64, activation="relu"), keras.layers.Dense(1)])
        self.head = keras.Sequential([keras.layers.Dense(128, activation="relu"),
                                      keras.layers.Dense(64, activation="relu"), keras.layers.Dense(1)])

    def call(self, x, training=False):
        cand = self.item_emb(x["item"])                      # (B, d)
        hist = self.item_emb(x["history"])                   # (B, L, d)
        valid = tf.cast(tf.not_equal(x["history"], 0), tf.float32)
        c = tf.repeat(cand[:, None, :], tf.shape(hist)[1], axis=1)
        w = tf.squeeze(self.att(tf.concat([hist, c, hist * c], -1)), -1) - 1e9 * (1.0 - valid)
        interest = tf.reduce_sum(tf.nn.softmax(w, axis=1)[..., None] * hist, axis=1)
        z = tf.concat([self.user_emb(x["user"]), cand, interest], -1)
        return tf.squeeze(self.head(z, training=training), -1)
