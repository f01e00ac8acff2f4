import keras
import tensorflow as tf


def make_encoder(width=64):
    return keras.Sequential([
        keras.layers.Conv1D(width, 3, dilation_rate=d, padding="causal", activation="relu")
        for d in (1, 2, 4, 8)
    ] + [keras.layers.GlobalAveragePooling1D()], name="tcn_encoder")


class Forecaster(keras.Model):
    def __init__(self, horizon, **kw):
        super().__init__(**kw)
        self.horizon = horizon
        self.encoder = make_encoder()
        self.head = keras.layers.Dense(horizon)
        self.mae = keras.metrics.MeanAbsoluteError(name="mae")
        self.loss_tracker = keras.metrics.Mean(name="loss")

    def call(self, x, training=False):
        return self.head(self.encoder(x, training=training))

    def get_config(self):
        return {**super().get_config(), "horizon": self.horizon}

    @property
    def metrics(self):
        return [self.loss_tracker, self.mae]

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            pred = self(x, training=True)
            loss = tf.reduce_mean(tf.keras.losses.huber(y, pred))
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        self.loss_tracker.update_state(loss)
        self.mae.update_state(y, pred)
        return {m.name: m.result() for m in self.metrics}

    def test_step(self, data):
        x, y = data
        pred = self(x, training=False)
        self.loss_tracker.update_state(tf.reduce_mean(tf.keras.losses.huber(y, pred)))
        self.mae.update_state(y, pred)
        return {m.name: m.result() for m in self.metrics}
