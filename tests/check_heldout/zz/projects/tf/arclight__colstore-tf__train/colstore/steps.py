import horovod.tensorflow as hvd
import tensorflow as tf


class AccumulatingStep:
    """Gradient accumulation over `accum` micro-batches before one optimizer update."""

    def __init__(self, model, optimizer, loss_fn, accum=4):
        self.model, self.opt, self.loss_fn, self.accum = model, optimizer, loss_fn, accum
        self.buffers = [tf.Variable(tf.zeros_like(v), trainable=False)
                        for v in model.trainable_variables]

    @tf.function
    def micro(self, x, y):
        with tf.GradientTape() as tape:
            loss = self.loss_fn(y, self.model(x, training=True)) / self.accum
        grads = tape.gradient(loss, self.model.trainable_variables)
        for buf, g in zip(self.buffers, grads):
            buf.assign_add(g)
        return loss

    @tf.function
    def apply(self):
        self.opt.apply_gradients(zip([b.read_value() for b in self.buffers],
                                     self.model.trainable_variables))
        for buf in self.buffers:
            buf.assign(tf.zeros_like(buf))

    def __call__(self, batches):
        total = 0.0
        for x, y in batches:
            total += float(self.micro(x, y))
        self.apply()
        # averaged across workers for logging only
        return float(hvd.allreduce(tf.constant(total), name="train_loss"))
