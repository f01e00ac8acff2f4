import tensorflow as tf


class SAGELayer(tf.keras.layers.Layer):
    def __init__(self, units, activation="relu"):
        super().__init__()
        self.self_dense = tf.keras.layers.Dense(units)
        self.neigh_dense = tf.keras.layers.Dense(units, use_bias=False)
        self.act = tf.keras.activations.get(activation)

    def call(self, h_self, h_neigh, fanout):
        agg = tf.reduce_mean(tf.reshape(h_neigh, [tf.shape(h_self)[0], fanout, -1]), axis=1)
        out = self.act(self.self_dense(h_self) + self.neigh_dense(agg))
        return tf.math.l2_normalize(out, axis=-1) if self.act is not None else out


class GraphSAGE(tf.keras.Model):
    def __init__(self, hidden, num_classes, num_layers=2, dropout=0.5):
        super().__init__()
        self.convs = [SAGELayer(hidden) for _ in range(num_layers)]
        self.drop = tf.keras.layers.Dropout(dropout)
        self.classifier = tf.keras.layers.Dense(num_classes)

    def call(self, feats, fanouts, training=False):
        h = list(feats)
        for conv in self.convs:
            h = [self.drop(conv(h[i], h[i + 1], fanout=fanouts[i]), training=training)
                 for i in range(len(h) - 1)]
        return self.classifier(h[0])
