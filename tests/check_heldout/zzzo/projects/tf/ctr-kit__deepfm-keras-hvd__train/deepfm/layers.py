import keras
from keras import ops


class FMInteraction(keras.layers.Layer):
    """second order term: 0.5 * sum((sum v)^2 - sum v^2)"""

    def call(self, v):
        s = ops.sum(v, axis=1)
        return 0.5 * ops.sum(s * s - ops.sum(v * v, axis=1), axis=1, keepdims=True)
