import keras
import tensorflow as tf
from keras import layers


def knn(x, k):
    inner = -2 * tf.matmul(x, x, transpose_b=True)
    sq = tf.reduce_sum(x ** 2, -1, keepdims=True)
    dist = -sq - inner - tf.transpose(sq, [0, 2, 1])
    return tf.math.top_k(dist, k=k).indices  # B x N x k


class EdgeConv(layers.Layer):
    def __init__(self, filters, k=20, **kw):
        super().__init__(**kw)
        self.k = k
        self.mlp = keras.Sequential([layers.Dense(filters, use_bias=False), layers.BatchNormalization(),
                                     layers.LeakyReLU(0.2)])

    def call(self, x, training=False):
        idx = knn(x, self.k)
        nbrs = tf.gather(x, idx, batch_dims=1)            # B x N x k x C
        center = tf.repeat(x[:, :, None], self.k, axis=2)
        edge = tf.concat([nbrs - center, center], -1)
        return tf.reduce_max(self.mlp(edge, training=training), axis=2)


class DGCNN(keras.Model):
    def __init__(self, num_classes=40, k=20, emb=512):
        super().__init__()
        self.ec = [EdgeConv(64, k), EdgeConv(64, k), EdgeConv(128, k)]
        self.emb = layers.Dense(emb, activation=None)
        self.head = keras.Sequential([layers.Dense(256), layers.BatchNormalization(), layers.LeakyReLU(0.2),
                                      layers.Dropout(0.5), layers.Dense(num_classes)])

    def call(self, x, training=False):
        feats = []
        for ec in self.ec:
            x = ec(x, training=training)
            feats.append(x)
        x = self.emb(tf.concat(feats, -1))
        x = tf.concat([tf.reduce_max(x, 1), tf.reduce_mean(x, 1)], -1)
        return self.head(x, training=training)
