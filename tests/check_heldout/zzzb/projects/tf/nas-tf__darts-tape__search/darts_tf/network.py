import tensorflow as tf
import keras
from keras import layers

from .ops import OP_NAMES, make_op


class MixedEdge(layers.Layer):
    def __init__(self, c, **kw):
        super().__init__(**kw)
        self.ops = [make_op(n, c) for n in OP_NAMES]

    def call(self, x, weights, training=False):
        outs = [op(x, training=training) for op in self.ops]
        return tf.add_n([w * o for w, o in zip(tf.unstack(weights), outs)])


class SearchNet(keras.Model):
    """Stem -> chain of mixed edges -> classifier, with one row of alphas per edge."""

    def __init__(self, c=16, edges=4, num_classes=10, **kw):
        super().__init__(**kw)
        self.stem = layers.Conv2D(c, 3, padding="same", use_bias=False)
        self.stem_bn = layers.BatchNormalization()
        self.edges = [MixedEdge(c) for _ in range(edges)]
        self.pool = layers.GlobalAveragePooling2D()
        self.fc = layers.Dense(num_classes)
        self.alphas = tf.Variable(1e-3 * tf.random.normal([edges, len(OP_NAMES)]),
                                  trainable=False, name="alphas")

    def call(self, x, training=False):
        x = self.stem_bn(self.stem(x), training=training)
        w = tf.nn.softmax(self.alphas, axis=-1)
        for i, edge in enumerate(self.edges):
            x = edge(x, w[i], training=training)
        return self.fc(self.pool(x))

    @property
    def weight_variables(self):
        return [v for v in self.trainable_variables if "alphas" not in v.name]
