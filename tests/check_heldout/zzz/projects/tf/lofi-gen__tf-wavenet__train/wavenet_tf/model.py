import keras
import tensorflow as tf


class CausalBlock(keras.layers.Layer):
    def __init__(self, res, skip, dilation, **kw):
        super().__init__(**kw)
        self.dilated = keras.layers.Conv1D(2 * res, 2, dilation_rate=dilation, padding="causal")
        self.res = keras.layers.Conv1D(res, 1)
        self.skip = keras.layers.Conv1D(skip, 1)

    def call(self, x):
        h = self.dilated(x)
        a, b = tf.split(h, 2, axis=-1)
        h = tf.tanh(a) * tf.sigmoid(b)
        return x + self.res(h), self.skip(h)


def build_wavenet(cfg):
    inp = keras.Input((None,), dtype="int32")
    x = keras.layers.Embedding(cfg.quant, cfg.residual_channels)(inp)
    x = keras.layers.Conv1D(cfg.residual_channels, 2, padding="causal")(x)
    skips = []
    for b in range(cfg.blocks):
        for i in range(cfg.layers_per_block):
            x, s = CausalBlock(cfg.residual_channels, cfg.skip_channels, 2 ** i)(x)
            skips.append(s)
    h = keras.layers.Activation("relu")(keras.layers.Add()(skips))
    h = keras.layers.Conv1D(cfg.skip_channels, 1, activation="relu")(h)
    return keras.Model(inp, keras.layers.Conv1D(cfg.quant, 1)(h), name="wavenet")
