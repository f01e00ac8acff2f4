import tensorflow as tf
import keras
from keras import layers


class Block(layers.Layer):
    def __init__(self, units, lookback, horizon, **kw):
        super().__init__(**kw)
        self.fc = [layers.Dense(units, activation="relu") for _ in range(4)]
        self.theta_b = layers.Dense(lookback)
        self.theta_f = layers.Dense(horizon)

    def call(self, x):
        h = x
        for f in self.fc:
            h = f(h)
        return self.theta_b(h), self.theta_f(h)


class NBeats(keras.Model):
    """Generic N-BEATS: doubly residual stacking of fully connected blocks."""

    def __init__(self, cfg, **kw):
        super().__init__(**kw)
        self.blocks = [Block(cfg.units, cfg.lookback, cfg.horizon)
                       for _ in range(cfg.stacks * cfg.blocks_per_stack)]

    def call(self, x):
        residual, forecast = x, 0.0
        for b in self.blocks:
            back, fore = b(residual)
            residual = residual - back
            forecast = forecast + fore
        return forecast
