import keras
import tensorflow as tf


class GINConv(keras.layers.Layer):
    def __init__(self, units, **kw):
        super().__init__(**kw)
        self.eps = self.add_weight(name="eps", shape=(), initializer="zeros")
        self.mlp = keras.Sequential([keras.layers.Dense(units, activation="relu"), keras.layers.Dense(units)])
        self.norm = keras.layers.BatchNormalization()

    def call(self, x, edges, training=False):
        agg = tf.math.unsorted_segment_sum(tf.gather(x, edges[0]), edges[1], tf.shape(x)[0])
        return tf.nn.relu(self.norm(self.mlp((1.0 + self.eps) * x + agg), training=training))


class GINEncoder(keras.Model):
    def __init__(self, hidden=64, layers=4):
        super().__init__()
        self.convs = [GINConv(hidden) for _ in range(layers)]

    def call(self, g, training=False):
        h, pooled = g["x"], []
        for conv in self.convs:
            h = conv(h, g["edges"], training=training)
            pooled.append(tf.math.unsorted_segment_sum(h, g["graph_id"], g["num_graphs"]))
        return tf.concat(pooled, axis=-1)


class GraphClassifier(keras.Model):
    def __init__(self, hidden=64, layers=4, n_classes=2, dropout=0.5):
        super().__init__()
        self.encoder = GINEncoder(hidden, layers)
        self.head = keras.Sequential([keras.layers.Dense(hidden, activation="relu"),
                                      keras.layers.Dropout(dropout), keras.layers.Dense(n_classes)])

    def call(self, g, training=False):
        return self.head(self.encoder(g, training=training), training=training)
