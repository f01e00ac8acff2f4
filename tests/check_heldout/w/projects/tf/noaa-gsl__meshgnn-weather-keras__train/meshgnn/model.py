import keras
from keras import layers, ops


class MeshMessagePassing(layers.Layer):
    def __init__(self, adjacency, hidden, **kw):
        super().__init__(**kw)
        self.adj = ops.convert_to_tensor(adjacency)
        self.msg = layers.Dense(hidden, activation="silu")
        self.upd = layers.Dense(hidden)
        self.norm = layers.LayerNormalization()

    def call(self, h):
        agg = ops.einsum("ij,bjc->bic", self.adj, self.msg(h))
        return self.norm(h + self.upd(ops.concatenate([h, agg], axis=-1)))


def build_model(adjacency, n_vars, hidden=128, n_steps=4):
    n_nodes = adjacency.shape[0]
    inp = keras.Input((n_nodes, n_vars))
    h = layers.Dense(hidden, activation="silu")(inp)
    for i in range(n_steps):
        h = MeshMessagePassing(adjacency, hidden, name=f"mp{i}")(h)
    return keras.Model(inp, layers.Dense(n_vars)(h), name="meshgnn")
