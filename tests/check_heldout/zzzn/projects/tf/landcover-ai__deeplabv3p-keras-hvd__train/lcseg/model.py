import keras
import tensorflow as tf
from keras import layers
import horovod.tensorflow as hvd


class HvdModel(keras.Model):
    """keras.Model whose train_step averages gradients over horovod workers."""

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x=x, y=y, y_pred=y_pred)
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        return self.compute_metrics(x, y, y_pred)


def _conv(x, f, k=3, d=1, s=1):
    x = layers.Conv2D(f, k, strides=s, dilation_rate=d, padding="same", use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    return layers.ReLU()(x)


def deeplabv3plus(num_classes, crop=None):
    inp = keras.Input((crop, crop, 3))
    low = _conv(_conv(inp, 32, s=2), 48, s=2)           # 1/4
    x = _conv(_conv(low, 96, s=2), 128, s=2)            # 1/16
    aspp = [_conv(x, 96, 1)] + [_conv(x, 96, 3, d=r) for r in (6, 12, 18)]
    pooled = layers.GlobalAveragePooling2D(keepdims=True)(x)
    pooled = layers.Conv2D(96, 1, activation="relu")(pooled)
    pooled = layers.Lambda(lambda t: tf.image.resize(t[0], tf.shape(t[1])[1:3]))([pooled, x])
    x = _conv(layers.Concatenate()(aspp + [pooled]), 96, 1)
    x = layers.UpSampling2D(4, interpolation="bilinear")(x)
    x = _conv(layers.Concatenate()([x, _conv(low, 48, 1)]), 96)
    x = layers.Conv2D(num_classes, 1)(x)
    out = layers.UpSampling2D(4, interpolation="bilinear")(x)
    return HvdModel(inp, out, name="deeplabv3plus")
