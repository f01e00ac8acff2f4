import keras
import tensorflow as tf


class TwoTower(keras.Model):
    def __init__(self, num_users, num_items, dim, temperature):
        super().__init__()
        self.user_emb = keras.layers.Embedding(num_users, dim)
        self.item_emb = keras.layers.Embedding(num_items, dim)
        self.user_mlp = keras.layers.Dense(dim)
        self.item_mlp = keras.layers.Dense(dim)
        self.temperature = temperature

    def encode_users(self, u):
        return tf.math.l2_normalize(self.user_mlp(self.user_emb(u)), -1)

    def encode_items(self, i):
        return tf.math.l2_normalize(self.item_mlp(self.item_emb(i)), -1)

    def call(self, inputs):
        u, i = inputs
        return tf.matmul(self.encode_users(u), self.encode_items(i), transpose_b=True) / self.temperature
