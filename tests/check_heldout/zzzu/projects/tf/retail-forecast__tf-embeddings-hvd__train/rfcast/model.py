import tensorflow as tf


class EmbeddingRegressor(tf.keras.Model):
    def __init__(self, cards, dims):
        super().__init__()
        self.embs = {c: tf.keras.layers.Embedding(cards[c] + 1, dims[c], name=f"emb_{c}") for c in cards}
        self.mlp = tf.keras.Sequential([tf.keras.layers.Dense(256, activation="relu"),
                                        tf.keras.layers.Dropout(0.2),
                                        tf.keras.layers.Dense(64, activation="relu"),
                                        tf.keras.layers.Dense(1)])

    def call(self, x, training=False):
        h = tf.concat([self.embs[c](x[c]) for c in sorted(self.embs)], axis=-1)
        return tf.squeeze(self.mlp(h, training=training), -1)
