import os

import tensorflow as tf
import keras
import horovod.tensorflow as hvd


class Trainer:
    def __init__(self, model, optimizer, out_dir, chief):
        self.model, self.opt = model, optimizer
        self.loss_fn = keras.losses.MeanSquaredError()
        self.out_dir = out_dir
        self.chief = chief
        self.best = float("inf")
        self._synced = False

    @tf.function
    def _train_step(self, x, y):
        with tf.GradientTape() as tape:
            loss = self.loss_fn(y, self.model(x, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.opt.apply_gradients(zip(grads, self.model.trainable_variables))
        return loss

    def train_epoch(self, iterator, steps):
        total = 0.0
        for _ in range(steps):
            x, y = next(iterator)
            total += float(self._train_step(x, y))
            if not self._synced:
                hvd.broadcast_variables(self.model.variables, root_rank=0)
                hvd.broadcast_variables(self.opt.variables, root_rank=0)
                self._synced = True
        return total / steps

    def evaluate(self, dataset):
        sq, n = 0.0, 0.0
        for x, y in dataset:
            sq += float(tf.reduce_sum(tf.square(self.model(x) - y)))
            n += float(tf.cast(tf.size(y), tf.float32))
        sq, n = hvd.allreduce(tf.constant([sq, n], tf.float64), op=hvd.Sum, name="val_sse").numpy()
        return sq / n

    def maybe_save(self, val_mse, epoch):
        if not self.chief:
            return
        os.makedirs(self.out_dir, exist_ok=True)
        self.model.save_weights(os.path.join(self.out_dir, "last.weights.h5"))
        if val_mse < self.best:
            self.best = val_mse
            self.model.save_weights(os.path.join(self.out_dir, "best.weights.h5"))
            print(f"[epoch {epoch}] new best val_mse={val_mse:.5f}", flush=True)
