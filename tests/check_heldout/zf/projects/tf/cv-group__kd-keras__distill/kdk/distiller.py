import keras
import tensorflow as tf


class Distiller(keras.Model):
    """Trains `student` on a mix of hard labels and the frozen `teacher`'s soft targets."""

    def __init__(self, student, teacher, temperature=3.0, alpha=0.1):
        super().__init__()
        self.student, self.teacher = student, teacher
        self.teacher.trainable = False
        self.temperature, self.alpha = temperature, alpha
        self.ce = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
        self.kl = keras.losses.KLDivergence()
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
        T = self.temperature
        with tf.GradientTape() as tape:
            s_logits = self.student(x, training=True)
            hard = self.ce(y, s_logits)
            soft = self.kl(tf.nn.softmax(t_logits / T), tf.nn.softmax(s_logits / T)) * T * T
            loss = self.alpha * hard + (1.0 - self.alpha) * soft
        grads = tape.gradient(loss, self.student.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.student.trainable_variables))
        self.loss_tracker.update_state(loss)
        self.acc.update_state(y, s_logits)
        return {m.name: m.result() for m in self.metrics}

    def test_step(self, data):
        x, y = data
        logits = self.student(x, training=False)
        self.loss_tracker.update_state(self.ce(y, logits))
        self.acc.update_state(y, logits)
        return {m.name: m.result() for m in self.metrics}
