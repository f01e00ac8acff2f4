import numpy as np
import tensorflow as tf
import keras


class GraphConv(keras.layers.Layer):
    """H' = act(A_hat H W); A_hat is a constant sparse tensor owned by the layer"""

    def __init__(self, units, a_hat, activation=None, l2=0.0, **kw):
        super().__init__(**kw)
        self.units = units
        self.a_hat = a_hat
        self.activation = keras.activations.get(activation)
        self.l2 = l2

    def build(self, input_shape):
        self.kernel = self.add_weight(name="kernel", shape=(input_shape[-1], self.units),
                                      initializer="glorot_uniform",
                                      regularizer=keras.regularizers.l2(self.l2) if self.l2 else None)
        self.bias = self.add_weight(name="bias", shape=(self.units,), initializer="zeros")

    def call(self, h):
        h = tf.matmul(h, self.kernel)
        h = tf.sparse.sparse_dense_matmul(self.a_hat, h) + self.bias
        return self.activation(h)


def to_sparse_tensor(filt):
    row, col, val, shape = filt
    idx = np.stack([row, col], 1).astype("int64")
    st = tf.SparseTensor(idx, val, shape)
    return tf.sparse.reorder(st)
