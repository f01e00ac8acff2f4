import tensorflow as tf
import keras
from keras import layers


class Stage(keras.layers.Layer):
    """Two conv layers + pooling; with recompute=True the activations inside the
    stage are recomputed during backprop instead of being stored."""

    def __init__(self, filters, recompute=False, **kw):
        super().__init__(**kw)
        self.c1 = layers.Conv2D(filters, 3, padding="same", activation="relu")
        self.c2 = layers.Conv2D(filters, 3, padding="same", activation="relu")
        self.pool = layers.MaxPool2D()
        self.recompute = recompute

    def build(self, input_shape):
        self.c1.build(input_shape)
        self.c2.build(input_shape[:-1] + (self.c1.filters,))

    def _body(self, x):
        return self.pool(self.c2(self.c1(x)))

    def call(self, x, training=False):
        if self.recompute and training:
            return tf.recompute_grad(self._body)(x)
        return self._body(x)


def build_model(num_classes, recompute=False):
    return keras.Sequential([
        keras.Input((64, 64, 3)),
        Stage(32, recompute), Stage(64, recompute), Stage(128, recompute),
        layers.GlobalAveragePooling2D(),
        layers.Dropout(0.3),
        layers.Dense(num_classes),
    ])
