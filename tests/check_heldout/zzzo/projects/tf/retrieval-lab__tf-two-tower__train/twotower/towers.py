import tensorflow as tf


class Tower(tf.keras.Model):
    def __init__(self, buckets, dim, name):
        super().__init__(name=name)
        self.hash = tf.keras.layers.Hashing(buckets)
        self.table = tf.keras.layers.Embedding(buckets, dim, name=name + "_table")
        self.mlp = tf.keras.Sequential([tf.keras.layers.Dense(2 * dim, activation="relu"),
                                        tf.keras.layers.Dense(dim)])

    def call(self, ids):
        return tf.math.l2_normalize(self.mlp(self.table(self.hash(ids))), axis=-1)

    def embedding_variables(self):
        return self.table.trainable_variables

    def dense_variables(self):
        return self.mlp.trainable_variables


class TwoTower(tf.keras.Model):
    def __init__(self, user_buckets, item_buckets, dim):
        super().__init__()
        self.user = Tower(user_buckets, dim, "user")
        self.item = Tower(item_buckets, dim, "item")

    def call(self, batch):
        return self.user(batch["user"]), self.item(batch["item"])
