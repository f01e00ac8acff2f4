import keras
import tensorflow as tf
from keras import ops


class Distiller(keras.Model):
    """Wraps a frozen teacher and a trainable student; fit() trains the student only."""

    def __init__(self, student, teacher, temperature=3.0, alpha=0.1):
        super().__init__()
        self.student, self.teacher = student, teacher
        self.teacher.trainable = False
        self.temperature, self.alpha = temperature, alpha
        self.kl = keras.losses.KLDivergence()
        self.ce = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        self.loss_tracker = keras.metrics.Mean(name="loss")
        self.acc = keras.metrics.SparseCategoricalAccuracy(name="acc")

    @property
    def metrics(self):
        return [self.loss_tracker, self.acc]

    def call(self, x, training=False):
        return self.student(x, training=training)

    def train_step(self, data):
        x, y = data
        t_logits = self.teacher(x, training=False)
        with tf.GradientTape() as tape:
            s_logits = self.student(x, training=True)
            T = self.temperature
            distill = self.kl(ops.softmax(t_logits / T), ops.softmax(s_logits / T)) * T * T
            loss = self.alpha * self.ce(y, s_logits) + (1.0 - self.alpha) * distill
        grads = tape.gradient(loss, self.student.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.student.trainable_variables))
        self.loss_tracker.update_state(loss)
        self.acc.update_state(y, s_logits)
        return {m.name: m.result() for m in self.metrics}

    def test_step(self, data):
        x, y = data
        s_logits = self.student(x, training=False)
        self.loss_tracker.update_state(self.ce(y, s_logits))
        self.acc.update_state(y, s_logits)
        return {m.name: m.result() for m in self.metrics}
