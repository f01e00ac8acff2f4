import keras
import tensorflow as tf
import horovod.tensorflow as hvd


def build_backbone(num_classes=10):
    inputs = keras.Input((32, 32, 3))
    x = inputs
    for filters in (32, 64, 128):
        x = keras.layers.Conv2D(filters, 3, padding="same", use_bias=False)(x)
        x = keras.layers.BatchNormalization()(x)
        x = keras.layers.ReLU()(x)
        x = keras.layers.Conv2D(filters, 3, padding="same", activation="relu")(x)
        x = keras.layers.MaxPooling2D()(x)
    x = keras.layers.GlobalAveragePooling2D()(x)
    return keras.Model(inputs, keras.layers.Dense(num_classes)(x), name="cnn")


class AdversarialModel(keras.Model):
    """Wraps a backbone; every training batch is half clean, half FGSM (Goodfellow et al. 2015)."""

    def __init__(self, backbone, epsilon=8 / 255, **kwargs):
        super().__init__(**kwargs)
        self.backbone = backbone
        self.epsilon = epsilon

    def call(self, x, training=False):
        return self.backbone(x, training=training)

    def fgsm(self, x, y):
        with tf.GradientTape() as tape:
            tape.watch(x)
            loss = self.compute_loss(x=x, y=y, y_pred=self(x, training=False))
        x_adv = x + self.epsilon * tf.sign(tape.gradient(loss, x))
        return tf.stop_gradient(tf.clip_by_value(x_adv, 0.0, 1.0))

    def train_step(self, data):
        x, y = data
        x_all = tf.concat([x, self.fgsm(x, y)], axis=0)
        y_all = tf.concat([y, y], axis=0)
        with tf.GradientTape() as tape:
            y_pred = self(x_all, training=True)
            loss = self.compute_loss(x=x_all, y=y_all, y_pred=y_pred)
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        for metric in self.metrics:
            if metric.name == "loss":
                metric.update_state(loss)
            else:
                metric.update_state(y_all, y_pred)
        return {m.name: m.result() for m in self.metrics}
