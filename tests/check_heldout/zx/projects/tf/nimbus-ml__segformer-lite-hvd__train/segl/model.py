import keras
import tensorflow as tf
from keras import layers


class SegFormerLite(keras.Model):
    """Overlapping patch embeddings + a light MLP decoder."""

    def __init__(self, num_classes, dims=(32, 64, 128), **kwargs):
        super().__init__(**kwargs)
        self.stages = [
            keras.Sequential([layers.Conv2D(d, 3, strides=2, padding="same"),
                              layers.LayerNormalization(), layers.Activation("gelu")])
            for d in dims
        ]
        self.proj = [layers.Conv2D(64, 1) for _ in dims]
        self.fuse = layers.Conv2D(64, 1, activation="relu")
        self.head = layers.Conv2D(num_classes, 1, dtype="float32")

    def call(self, x, training=False):
        size = tf.shape(x)[1:3]
        feats = []
        for stage, proj in zip(self.stages, self.proj):
            x = stage(x, training=training)
            feats.append(tf.image.resize(proj(x), size))
        return self.head(self.fuse(tf.concat(feats, axis=-1)))

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x=x, y=y, y_pred=y_pred)
            scaled = self.optimizer.scale_loss(loss)
        grads = tape.gradient(scaled, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        return self._update_metrics(loss, y, y_pred)

    def test_step(self, data):
        x, y = data
        y_pred = self(x, training=False)
        loss = self.compute_loss(x=x, y=y, y_pred=y_pred)
        return self._update_metrics(loss, y, y_pred)

    def _update_metrics(self, loss, y, y_pred):
        for metric in self.metrics:
            if metric.name == "loss":
                metric.update_state(loss)
            else:
                metric.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}
