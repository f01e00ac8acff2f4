"""Training step functions. With accum_steps > 1 gradients are summed over micro-batches."""
import horovod.tensorflow as hvd
import tensorflow as tf


def make_train_step(model, optimizer, loss_fn):
    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss
    return train_step


class AccumulatingStep:
    def __init__(self, model, optimizer, loss_fn, accum_steps):
        self.model, self.opt, self.loss_fn, self.k = model, optimizer, loss_fn, accum_steps
        self.acc = [tf.Variable(tf.zeros_like(v), trainable=False) for v in model.trainable_variables]

    @tf.function
    def _micro(self, x, y):
        with tf.GradientTape() as tape:
            loss = self.loss_fn(y, self.model(x, training=True)) / self.k
        for a, g in zip(self.acc, tape.gradient(loss, self.model.trainable_variables)):
            a.assign_add(g)
        return loss * self.k

    @tf.function
    def _apply(self):
        self.opt.apply_gradients(zip([a.read_value() for a in self.acc], self.model.trainable_variables))
        for a in self.acc:
            a.assign(tf.zeros_like(a))

    def __call__(self, batches):
        losses = [self._micro(x, y) for x, y in batches]
        self._apply()
        return tf.add_n(losses) / len(losses)
