import tensorflow as tf
import keras
from keras import layers


class SiameseNLI(keras.Model):
    """InferSent-style: shared encoder, features [u, v, |u - v|, u * v]."""

    def __init__(self, vocab_size, dim=256, n_classes=3):
        super().__init__()
        self.emb = layers.Embedding(vocab_size, 200, mask_zero=True)
        self.enc = layers.Bidirectional(layers.GRU(dim, return_sequences=True))
        self.pool = layers.GlobalMaxPooling1D()
        self.mlp = keras.Sequential([layers.Dense(512, activation="relu"), layers.Dropout(0.2),
                                     layers.Dense(n_classes, dtype="float32")])

    def encode(self, ids, training):
        return self.pool(self.enc(self.emb(ids), training=training))

    def call(self, premise, hypothesis, training=False):
        u = self.encode(premise, training)
        v = self.encode(hypothesis, training)
        return self.mlp(tf.concat([u, v, tf.abs(u - v), u * v], axis=-1), training=training)
