import keras
import tensorflow as tf
from keras import layers


def bce_dice_loss(y_true, y_pred):
    bce = keras.losses.binary_crossentropy(y_true, y_pred)
    inter = tf.reduce_sum(y_true * y_pred, axis=[1, 2, 3])
    denom = tf.reduce_sum(y_true + y_pred, axis=[1, 2, 3])
    dice = 1.0 - (2.0 * inter + 1.0) / (denom + 1.0)
    return tf.reduce_mean(bce, axis=[1, 2]) + dice


class CellUNet(keras.Model):
    def __init__(self, base_filters=16, **kwargs):
        super().__init__(**kwargs)
        f = base_filters
        self.d1 = [layers.Conv2D(f, 3, padding="same", activation="relu") for _ in range(2)]
        self.d2 = [layers.Conv2D(2 * f, 3, padding="same", activation="relu") for _ in range(2)]
        self.pool = layers.MaxPooling2D()
        self.up = layers.Conv2DTranspose(f, 2, strides=2, padding="same")
        self.u1 = [layers.Conv2D(f, 3, padding="same", activation="relu") for _ in range(2)]
        self.out = layers.Conv2D(1, 1, activation="sigmoid")

    def call(self, x, training=False):
        for c in self.d1:
            x = c(x)
        skip = x
        x = self.pool(x)
        for c in self.d2:
            x = c(x)
        x = layers.concatenate([self.up(x), skip])
        for c in self.u1:
            x = c(x)
        return self.out(x)

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x=x, y=y, y_pred=y_pred)
        grads = tape.gradient(loss, self.trainable_variables)
        # the compiled optimizer is Horovod's DistributedOptimizer: it allreduces inside apply
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        for metric in self.metrics:
            if metric.name == "loss":
                metric.update_state(loss)
            else:
                metric.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}
