import numpy as np
import tensorflow as tf
import keras
from keras import layers
import horovod.tensorflow as hvd


def lat_weights(nlat):
    w = np.cos(np.deg2rad(np.linspace(90, -90, nlat)))
    return (w / w.mean()).astype(np.float32)


class RolloutModel(keras.Model):
    """Wraps a one-step network; fit() trains it on a K-step autoregressive loss with the
    gradients allreduced by Horovod."""

    def __init__(self, net, rollout, nlat, **kw):
        super().__init__(**kw)
        self.net = net
        self.rollout = rollout
        self.w = tf.constant(lat_weights(nlat).reshape(1, nlat, 1, 1))
        self.loss_tracker = keras.metrics.Mean(name="loss")
        self.rmse_tracker = keras.metrics.Mean(name="wrmse_last")

    def call(self, x, training=False):
        return self.net(x, training=training)

    def _roll(self, x, y, training):
        loss = 0.0
        for k in range(self.rollout):
            x = self.net(x, training=training)
            loss += tf.reduce_mean(self.w * tf.square(x - y[:, k]))
        return loss / self.rollout, x

    @property
    def metrics(self):
        return [self.loss_tracker, self.rmse_tracker]

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            loss, last = self._roll(x, y, True)
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, self.net.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.net.trainable_variables))
        self.loss_tracker.update_state(loss)
        self.rmse_tracker.update_state(tf.sqrt(tf.reduce_mean(self.w * tf.square(last - y[:, -1]))))
        return {m.name: m.result() for m in self.metrics}

    def test_step(self, data):
        x, y = data
        loss, last = self._roll(x, y, False)
        self.loss_tracker.update_state(loss)
        self.rmse_tracker.update_state(tf.sqrt(tf.reduce_mean(self.w * tf.square(last - y[:, -1]))))
        return {m.name: m.result() for m in self.metrics}


def build_net(nlat, nlon, nc, width, depth):
    x = keras.Input((nlat, nlon, nc))
    h = layers.Conv2D(width, 3, padding="same", activation="gelu")(x)
    for _ in range(depth):
        r = layers.DepthwiseConv2D(7, padding="same")(h)
        r = layers.LayerNormalization()(r)
        r = layers.Dense(2 * width, activation="gelu")(r)
        r = layers.Dense(width)(r)
        h = layers.Add()([h, r])
    return keras.Model(x, layers.Add()([x, layers.Conv2D(nc, 1)(h)]), name="gridnet")
