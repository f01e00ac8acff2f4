import keras
import tensorflow as tf
from keras import layers
import horovod.tensorflow as hvd


class DistModel(keras.Model):
    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x=x, y=y, y_pred=y_pred)
        grads = tape.gradient(loss, self.trainable_variables)
        grads = hvd.grouped_allreduce(grads, op=hvd.Average)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        return self.compute_metrics(x, y, y_pred)


def _enc(x, f):
    x = layers.SeparableConv2D(f, 3, padding="same", activation="relu")(x)
    x = layers.BatchNormalization()(x)
    return layers.SeparableConv2D(f, 3, padding="same", activation="relu")(x)


def unet_small(size=None):
    inp = keras.Input((size, size, 3))
    s1 = _enc(inp, 24)
    s2 = _enc(layers.MaxPool2D()(s1), 48)
    s3 = _enc(layers.MaxPool2D()(s2), 96)
    b = _enc(layers.MaxPool2D()(s3), 192)
    x = _enc(layers.Concatenate()([layers.UpSampling2D()(b), s3]), 96)
    x = _enc(layers.Concatenate()([layers.UpSampling2D()(x), s2]), 48)
    x = _enc(layers.Concatenate()([layers.UpSampling2D()(x), s1]), 24)
    return DistModel(inp, layers.Conv2D(1, 1, activation="sigmoid")(x), name="footprint_unet")
