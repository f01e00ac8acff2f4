import keras
import tensorflow as tf
from keras import layers


class DemandForecaster(keras.Model):
    """LSTM encoder + self-attention over the history, dense quantile head."""

    def __init__(self, horizon, quantiles=(0.1, 0.5, 0.9), hidden=64):
        super().__init__()
        self.horizon, self.quantiles = horizon, tf.constant(quantiles)
        self.lstm = layers.LSTM(hidden, return_sequences=True)
        self.attn = layers.MultiHeadAttention(4, hidden // 4)
        self.norm = layers.LayerNormalization()
        self.head = layers.Dense(horizon * len(quantiles))

    def call(self, x, training=False):
        h = self.lstm(x, training=training)
        h = self.norm(h + self.attn(h, h, training=training))
        out = self.head(h[:, -1])
        return tf.reshape(out, (-1, self.horizon, len(self.quantiles)))


def quantile_loss(y, pred, quantiles):
    err = y[..., None] - pred
    return tf.reduce_mean(tf.maximum(quantiles * err, (quantiles - 1.0) * err))
