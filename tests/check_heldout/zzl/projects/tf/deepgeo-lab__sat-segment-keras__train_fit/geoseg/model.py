import keras
import tensorflow as tf
import horovod.tensorflow as hvd


def _block(x, f):
    x = keras.layers.Conv2D(f, 3, padding="same", activation="relu")(x)
    return keras.layers.Conv2D(f, 3, padding="same", activation="relu")(x)


def tiny_unet(num_classes, size=64, bands=4):
    inp = keras.Input((size, size, bands))
    c1 = _block(inp, 16)
    c2 = _block(keras.layers.MaxPooling2D()(c1), 32)
    u1 = keras.layers.UpSampling2D()(c2)
    c3 = _block(keras.layers.Concatenate()([u1, c1]), 16)
    return keras.Model(inp, keras.layers.Conv2D(num_classes, 1)(c3))


class SegModel(keras.Model):
    """Wraps the U-Net so that fit() allreduces gradients through the tape."""

    def __init__(self, net, **kw):
        super().__init__(**kw)
        self.net = net
        self.loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        self.loss_tracker = keras.metrics.Mean(name="loss")
        self.acc = keras.metrics.SparseCategoricalAccuracy(name="pix_acc")

    @property
    def metrics(self):
        return [self.loss_tracker, self.acc]

    def call(self, x, training=False):
        return self.net(x, training=training)

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            logits = self(x, training=True)
            loss = self.loss_fn(y, logits)
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        self.loss_tracker.update_state(loss)
        self.acc.update_state(y, logits)
        return {m.name: m.result() for m in self.metrics}

    def test_step(self, data):
        x, y = data
        logits = self(x, training=False)
        self.loss_tracker.update_state(self.loss_fn(y, logits))
        self.acc.update_state(y, logits)
        return {m.name: m.result() for m in self.metrics}
