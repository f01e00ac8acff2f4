import tensorflow as tf


class CTRModel(tf.keras.Model):
    def __init__(self, vocab, dim, hidden):
        super().__init__()
        self.table = tf.keras.layers.Embedding(vocab, dim, name="big_table",
                                               embeddings_initializer=tf.keras.initializers.RandomUniform(-0.05, 0.05))
        self.dense_proj = tf.keras.layers.Dense(dim, activation="relu")
        self.mlp = tf.keras.Sequential([tf.keras.layers.Dense(h, activation="relu") for h in hidden] +
                                       [tf.keras.layers.Dense(1)])

    def call(self, dense, cat):
        e = tf.reshape(self.table(cat), [tf.shape(cat)[0], -1])
        return self.mlp(tf.concat([self.dense_proj(dense), e], axis=1))

    @property
    def sparse_vars(self):
        return self.table.trainable_variables

    @property
    def dense_vars(self):
        return self.dense_proj.trainable_variables + self.mlp.trainable_variables
