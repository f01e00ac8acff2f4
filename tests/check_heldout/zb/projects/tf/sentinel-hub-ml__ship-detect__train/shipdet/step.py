import tensorflow as tf
import horovod.tensorflow as hvd

from .model import detection_loss


class Stepper:
    def __init__(self, model, optimizer, accum_steps=1):
        self.model, self.optimizer, self.accum_steps = model, optimizer, accum_steps
        self.grad_buf = [tf.Variable(tf.zeros_like(v), trainable=False) for v in model.trainable_variables]

    @tf.function
    def _step(self, x, y):
        with tf.GradientTape() as tape:
            loss = detection_loss(y, self.model(x, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))
        return loss

    @tf.function
    def _accumulate(self, x, y):
        with tf.GradientTape() as tape:
            loss = detection_loss(y, self.model(x, training=True)) / self.accum_steps
        grads = tape.gradient(loss, self.model.trainable_variables)
        for buf, g in zip(self.grad_buf, grads):
            buf.assign_add(g)
        return loss * self.accum_steps

    @tf.function
    def _apply(self):
        self.optimizer.apply_gradients(zip([b.read_value() for b in self.grad_buf], self.model.trainable_variables))
        for buf in self.grad_buf:
            buf.assign(tf.zeros_like(buf))

    def train(self, x, y, i):
        if self.accum_steps == 1:
            return self._step(x, y)
        # accumulate micro-batches locally, one optimizer update every accum_steps
        loss = self._accumulate(x, y)
        if (i + 1) % self.accum_steps == 0:
            self._apply()
        return loss

    @tf.function
    def evaluate(self, x, y):
        return detection_loss(y, self.model(x, training=False))
