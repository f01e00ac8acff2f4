"""Morphology classifier with its own train/test steps (used through Model.fit)."""
import tensorflow as tf
from tensorflow import keras
import horovod.tensorflow as hvd


def conv_bn(x, filters, stride=1):
    x = keras.layers.Conv2D(filters, 3, strides=stride, padding="same", use_bias=False)(x)
    x = keras.layers.BatchNormalization()(x)
    return keras.layers.Activation("swish")(x)


def backbone(image_size, width, dropout):
    inp = keras.Input((image_size, image_size, 3))
    x = keras.layers.RandomFlip("horizontal_and_vertical")(inp)
    x = keras.layers.RandomRotation(0.5, fill_mode="reflect")(x)
    x = conv_bn(x, width)
    for mult in (1, 2, 4, 8):
        x = conv_bn(x, width * mult, stride=2)
        x = conv_bn(x, width * mult)
    x = keras.layers.GlobalAveragePooling2D()(x)
    x = keras.layers.Dropout(dropout)(x)
    return keras.Model(inp, x, name="backbone")


class MorphologyModel(keras.Model):
    """Galaxy Zoo DECaLS classes. Gradients are averaged over Horovod workers inside train_step."""

    def __init__(self, image_size=128, width=32, num_classes=10, dropout=0.3, **kwargs):
        super().__init__(**kwargs)
        self.features = backbone(image_size, width, dropout)
        self.classifier = keras.layers.Dense(num_classes, dtype="float32")
        self.loss_tracker = keras.metrics.Mean(name="loss")
        self.acc = keras.metrics.CategoricalAccuracy(name="accuracy")

    def call(self, x, training=False):
        return self.classifier(self.features(x, training=training))

    @property
    def metrics(self):
        return [self.loss_tracker, self.acc]

    def train_step(self, data):
        images, labels = data
        with tf.GradientTape() as tape:
            logits = self(images, training=True)
            loss = self.compute_loss(x=images, y=labels, y_pred=logits)
        # Horovod: average gradients over all workers before applying them
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        self.loss_tracker.update_state(loss)
        self.acc.update_state(labels, logits)
        return {m.name: m.result() for m in self.metrics}

    def test_step(self, data):
        images, labels = data
        logits = self(images, training=False)
        self.loss_tracker.update_state(self.compute_loss(x=images, y=labels, y_pred=logits))
        self.acc.update_state(labels, logits)
        return {m.name: m.result() for m in self.metrics}
