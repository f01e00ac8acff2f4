import tensorflow as tf
import keras


class GatedGraphLayer(keras.layers.Layer):
    def __init__(self, dim, **kw):
        super().__init__(**kw)
        self.msg = keras.layers.Dense(dim)
        self.gru = keras.layers.GRUCell(dim)

    def call(self, h, adj, mask):
        B, N, D = tf.shape(h)[0], tf.shape(h)[1], h.shape[-1]
        m = tf.matmul(adj, self.msg(h))
        out, _ = self.gru(tf.reshape(m, (-1, D)), [tf.reshape(h, (-1, D))])
        return tf.reshape(out, (B, N, D)) * mask[..., None]


class GGNN(keras.Model):
    def __init__(self, hidden=96, n_layers=4, vocab=64):
        super().__init__()
        self.emb = keras.layers.Embedding(vocab, hidden)
        self.layers_ = [GatedGraphLayer(hidden) for _ in range(n_layers)]
        self.gate = keras.layers.Dense(1, activation="sigmoid")
        self.proj = keras.layers.Dense(hidden)
        self.head = keras.layers.Dense(1)

    def call(self, x, adj, mask, training=False):
        h = self.emb(x) * mask[..., None]
        for layer in self.layers_:
            h = layer(h, adj, mask)
        # gated sum readout over the padded atoms
        g = tf.reduce_sum(self.gate(h) * self.proj(h) * mask[..., None], axis=1)
        return self.head(g)[:, 0]
