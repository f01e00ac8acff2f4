import os
import tensorflow as tf
import horovod.tensorflow as hvd

from .dist import mean_all


class GZTrainer:
    def __init__(self, model, lr):
        self.model = model
        # Sum instead of Average: lr is a per-worker lr, the sum scales it with the worker count
        self.opt = tf.keras.optimizers.SGD(lr, momentum=0.9)
        self.ckpt = tf.train.Checkpoint(model=model, opt=self.opt)
        self._first = True

    @tf.function
    def _step(self, x, y):
        with tf.GradientTape() as tape:
            pred = self.model(x, training=True)
            loss = tf.reduce_mean(tf.square(pred - y))
        tape = hvd.DistributedGradientTape(tape, op=hvd.Sum)
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.opt.apply_gradients(zip(grads, self.model.trainable_variables))
        return loss

    def train_epoch(self, it, steps):
        losses = []
        for _ in range(steps):
            x, y = next(it)
            losses.append(float(self._step(x, y)))
            if self._first:
                hvd.broadcast_variables(self.model.variables, root_rank=0)
                hvd.broadcast_variables(self.opt.variables, root_rank=0)
                self._first = False
        return mean_all(sum(losses) / len(losses), "train_rmse")

    def validate(self, it, steps):
        se = 0.0
        for _ in range(steps):
            x, y = next(it)
            se += float(tf.reduce_mean(tf.square(self.model(x, training=False) - y)))
        return mean_all(se / steps, "val_mse")

    def save(self, out, tag):
        if hvd.rank() == 0:
            self.ckpt.write(os.path.join(out, tag))
