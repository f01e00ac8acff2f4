import keras
from keras import ops


class GraphConv(keras.layers.Layer):
    """X' = A X W over the sensor axis, applied to every time step."""

    def __init__(self, adj, units, **kw):
        super().__init__(**kw)
        self.adj = adj
        self.units = units

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], self.units), initializer="glorot_uniform", name="w")

    def call(self, x):
        # x: (batch, time, sensors, features)
        h = ops.einsum("ij,btjf->btif", ops.convert_to_tensor(self.adj), x)
        return ops.relu(ops.matmul(h, self.w))
