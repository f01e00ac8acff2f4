import keras
from keras import layers


class GatedResidual(layers.Layer):
    def __init__(self, units, dropout=0.1, **kw):
        super().__init__(**kw)
        self.d1 = layers.Dense(units, activation="elu")
        self.d2 = layers.Dense(units)
        self.gate = layers.Dense(units, activation="sigmoid")
        self.drop = layers.Dropout(dropout)
        self.norm = layers.LayerNormalization()
        self.skip = layers.Dense(units)

    def call(self, x, training=False):
        h = self.drop(self.d2(self.d1(x)), training=training)
        return self.norm(self.skip(x) + self.gate(h) * h)


class TinyTFT(keras.Model):
    """LSTM encoder + gated residual blocks + one head per (horizon step, quantile)."""

    def __init__(self, horizon, n_quantiles, units=32, **kw):
        super().__init__(**kw)
        self.grn_in = GatedResidual(units)
        self.lstm = layers.LSTM(units)
        self.grn_out = GatedResidual(units)
        self.head = layers.Dense(horizon * n_quantiles)
        self.reshape = layers.Reshape((horizon, n_quantiles))

    def call(self, x, training=False):
        h = self.grn_in(x, training=training)
        h = self.grn_out(self.lstm(h), training=training)
        return self.reshape(self.head(h))
