import keras
import tensorflow as tf
import horovod.tensorflow as hvd_tf
from keras import layers


class CloudUNet(keras.Model):
    """U-Net whose train_step averages gradients with Horovod's DistributedGradientTape."""

    def __init__(self, n_classes, widths=(32, 64, 128, 256), **kw):
        super().__init__(**kw)
        self.enc = [keras.Sequential([layers.Conv2D(w, 3, padding="same", activation="relu"),
                                      layers.BatchNormalization(),
                                      layers.Conv2D(w, 3, padding="same", activation="relu")]) for w in widths]
        self.pools = [layers.MaxPooling2D() for _ in widths[:-1]]
        self.ups = [layers.Conv2DTranspose(w, 2, 2, padding="same") for w in reversed(widths[:-1])]
        self.dec = [keras.Sequential([layers.Conv2D(w, 3, padding="same", activation="relu"),
                                      layers.Conv2D(w, 3, padding="same", activation="relu")])
                    for w in reversed(widths[:-1])]
        self.head = layers.Conv2D(n_classes, 1)

    def call(self, x, training=False):
        skips = []
        for i, enc in enumerate(self.enc):
            x = enc(x, training=training)
            if i < len(self.pools):
                skips.append(x)
                x = self.pools[i](x)
        for up, dec in zip(self.ups, self.dec):
            x = dec(tf.concat([up(x), skips.pop()], axis=-1), training=training)
        return self.head(x)

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x=x, y=y, y_pred=y_pred)
        tape = hvd_tf.DistributedGradientTape(tape)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        for m in self.metrics:
            if m.name == "loss":
                m.update_state(loss)
            else:
                m.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}
