import keras
import tensorflow as tf
from keras import layers


def backbone(num_classes):
    return keras.applications.MobileNetV2(input_shape=(64, 64, 3), weights=None, classes=num_classes,
                                          classifier_activation=None)


class UDAModel(keras.Model):
    def __init__(self, net, uda_coeff=1.0, tsa_temperature=0.4, confidence=0.8):
        super().__init__()
        self.net = net
        self.uda_coeff, self.T, self.conf = uda_coeff, tsa_temperature, confidence
        self.sup_loss = keras.metrics.Mean(name="sup_loss")
        self.unsup_loss = keras.metrics.Mean(name="unsup_loss")
        self.accuracy = keras.metrics.SparseCategoricalAccuracy(name="accuracy")

    @property
    def metrics(self):
        return [self.sup_loss, self.unsup_loss, self.accuracy]

    def call(self, x, training=False):
        return self.net(x, training=training)

    def train_step(self, data):
        (x_lab, x_orig, x_aug), y = data
        orig_probs = tf.stop_gradient(tf.nn.softmax(self.net(x_orig, training=False) / self.T))
        keep = tf.cast(tf.reduce_max(orig_probs, -1) > self.conf, tf.float32)
        with tf.GradientTape() as tape:
            logits = self.net(x_lab, training=True)
            sup = tf.reduce_mean(keras.losses.sparse_categorical_crossentropy(y, logits, from_logits=True))
            aug_logp = tf.nn.log_softmax(self.net(x_aug, training=True))
            kl = tf.reduce_sum(orig_probs * (tf.math.log(orig_probs + 1e-8) - aug_logp), -1)
            unsup = tf.reduce_sum(kl * keep) / tf.maximum(tf.reduce_sum(keep), 1.0)
            loss = sup + self.uda_coeff * unsup
        grads = tape.gradient(loss, self.net.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.net.trainable_variables))
        self.sup_loss.update_state(sup)
        self.unsup_loss.update_state(unsup)
        self.accuracy.update_state(y, logits)
        return {m.name: m.result() for m in self.metrics}

    def test_step(self, data):
        x, y = data
        logits = self.net(x, training=False)
        self.sup_loss.update_state(keras.losses.sparse_categorical_crossentropy(y, logits, from_logits=True))
        self.accuracy.update_state(y, logits)
        return {"sup_loss": self.sup_loss.result(), "accuracy": self.accuracy.result()}
