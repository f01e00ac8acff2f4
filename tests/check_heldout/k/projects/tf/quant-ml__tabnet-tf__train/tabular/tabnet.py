import keras
import tensorflow as tf
from keras import layers


class GLUBlock(layers.Layer):
    def __init__(self, units, **kw):
        super().__init__(**kw)
        self.fc = layers.Dense(units * 2, use_bias=False)
        self.bn = layers.BatchNormalization(momentum=0.9)

    def call(self, x, training=False):
        a, b = tf.split(self.bn(self.fc(x), training=training), 2, axis=-1)
        return a * tf.sigmoid(b)


class AttentiveStep(layers.Layer):
    def __init__(self, num_features, units, **kw):
        super().__init__(**kw)
        self.mask_fc = layers.Dense(num_features, use_bias=False)
        self.mask_bn = layers.BatchNormalization(momentum=0.9)
        self.transform = [GLUBlock(units), GLUBlock(units)]

    def call(self, features, prior, hidden, training=False):
        logits = self.mask_bn(self.mask_fc(hidden), training=training) * prior
        mask = tf.nn.softmax(logits, axis=-1)
        h = features * mask
        for block in self.transform:
            h = block(h, training=training) + (h if h.shape[-1] == block.fc.units // 2 else 0.0)
        return h, mask


def build_tabnet(num_features, num_classes=2, units=64, steps=4, gamma=1.3):
    inp = keras.Input((num_features,))
    feats = layers.BatchNormalization()(inp)
    hidden = layers.Dense(units)(feats)
    prior = keras.ops.ones_like(feats)
    outputs = []
    for i in range(steps):
        h, mask = AttentiveStep(num_features, units, name=f"step_{i}")(feats, prior, hidden)
        prior = prior * (gamma - mask)
        hidden = h
        outputs.append(layers.ReLU()(h))
    agg = layers.Add()(outputs)
    return keras.Model(inp, layers.Dense(num_classes)(agg), name="tabnet")
