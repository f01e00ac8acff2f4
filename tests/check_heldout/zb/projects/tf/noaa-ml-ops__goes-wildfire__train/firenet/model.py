import keras
import tensorflow as tf
from keras import layers


class FireNet(keras.Model):
    """Small encoder-decoder with a custom train_step (focal BCE, fire-pixel IoU)."""

    def __init__(self, width=32, **kw):
        super().__init__(**kw)
        w = width
        self.down = [layers.Conv2D(w, 3, padding="same", activation="relu"),
                     layers.Conv2D(2 * w, 3, strides=2, padding="same", activation="relu"),
                     layers.Conv2D(4 * w, 3, strides=2, padding="same", activation="relu")]
        self.up = [layers.Conv2DTranspose(2 * w, 2, strides=2, activation="relu"),
                   layers.Conv2DTranspose(w, 2, strides=2, activation="relu")]
        self.head = layers.Conv2D(1, 1)
        self.loss_tracker = keras.metrics.Mean(name="loss")
        self.iou = keras.metrics.BinaryIoU(target_class_ids=[1], threshold=0.5, name="fire_iou")

    def call(self, x, training=False):
        for layer in self.down + self.up:
            x = layer(x)
        return self.head(x)

    @property
    def metrics(self):
        return [self.loss_tracker, self.iou]

    def _loss(self, y, logits):
        bce = keras.losses.binary_focal_crossentropy(y, logits, from_logits=True, gamma=2.0)
        return tf.reduce_mean(bce)

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            logits = self(x, training=True)
            loss = self._loss(y, logits)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        self.loss_tracker.update_state(loss)
        self.iou.update_state(y, tf.sigmoid(logits))
        return {m.name: m.result() for m in self.metrics}

    def test_step(self, data):
        x, y = data
        logits = self(x, training=False)
        self.loss_tracker.update_state(self._loss(y, logits))
        self.iou.update_state(y, tf.sigmoid(logits))
        return {m.name: m.result() for m in self.metrics}
