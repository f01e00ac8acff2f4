import keras
import tensorflow as tf


class KNNEdgeConv(keras.layers.Layer):
    """EdgeConv over a kNN graph rebuilt from the current features."""

    def __init__(self, units, k=16, **kw):
        super().__init__(**kw)
        self.k = k
        self.mlp = keras.layers.Dense(units)
        self.bn = keras.layers.BatchNormalization()

    def call(self, x, training=False):
        d = tf.reduce_sum(x ** 2, -1, keepdims=True)
        dist = d - 2 * tf.matmul(x, x, transpose_b=True) + tf.transpose(d, [0, 2, 1])
        idx = tf.math.top_k(-dist, k=self.k).indices                 # (B, P, k)
        nbrs = tf.gather(x, idx, batch_dims=1)                       # (B, P, k, C)
        ctr = tf.repeat(tf.expand_dims(x, 2), self.k, axis=2)
        e = self.mlp(tf.concat([ctr, nbrs - ctr], axis=-1))
        return tf.nn.leaky_relu(tf.reduce_max(self.bn(e, training=training), axis=2), 0.2)


def build_model(num_points, num_classes, k=16):
    inp = keras.Input((num_points, 4))
    h1 = KNNEdgeConv(64, k)(inp)
    h2 = KNNEdgeConv(64, k)(h1)
    h3 = KNNEdgeConv(128, k)(h2)
    h = keras.layers.Concatenate()([h1, h2, h3])
    h = keras.layers.GlobalMaxPooling1D()(keras.layers.Dense(512, activation="relu")(h))
    h = keras.layers.Dropout(0.4)(keras.layers.Dense(256, activation="relu")(h))
    return keras.Model(inp, keras.layers.Dense(num_classes)(h), name="lidar_edgeconv")
