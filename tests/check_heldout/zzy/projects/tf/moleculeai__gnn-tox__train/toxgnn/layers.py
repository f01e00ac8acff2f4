import keras
from keras import layers, ops


class GraphConv(layers.Layer):
    def __init__(self, units, **kw):
        super().__init__(**kw)
        self.dense = layers.Dense(units, use_bias=True)

    def call(self, atoms, adj):
        return ops.relu(self.dense(ops.matmul(adj, atoms)))


class ToxGCN(keras.Model):
    def __init__(self, n_tasks=12, hidden=128, depth=3, dropout=0.2):
        super().__init__()
        self.convs = [GraphConv(hidden) for _ in range(depth)]
        self.drop = layers.Dropout(dropout)
        self.readout = layers.Dense(hidden, activation="relu")
        self.out = layers.Dense(n_tasks)

    def call(self, atoms, adj, training=False):
        h = atoms
        for conv in self.convs:
            h = conv(h, adj)
        g = ops.sum(h, axis=1)                      # sum pooling over atoms
        return self.out(self.drop(self.readout(g), training=training))
