import json
import os

import tensorflow as tf
import horovod.tensorflow as hvd

from .dist import is_chief


class Trainer:
    def __init__(self, model, optimizer, out_dir):
        self.model, self.optimizer, self.out_dir = model, optimizer, out_dir
        self.ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer)
        self.loss_fn = tf.keras.losses.MeanSquaredError()

    @tf.function
    def train_step(self, x, y, first_batch):
        with tf.GradientTape() as tape:
            loss = self.loss_fn(y, self.model(x, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(self.model.variables, root_rank=0)
            hvd.broadcast_variables(self.optimizer.variables, root_rank=0)
        return loss

    @tf.function
    def eval_step(self, x, y):
        return tf.reduce_sum(tf.reduce_mean(tf.square(self.model(x, training=False) - y), axis=[1, 2, 3]))

    def evaluate(self, ds):
        sse, n = 0.0, 0.0
        for x, y in ds:
            sse += self.eval_step(x, y)
            n += float(x.shape[0])
        totals = hvd.allreduce(tf.stack([tf.cast(sse, tf.float32), tf.constant(n, tf.float32)]), op=hvd.Sum)
        return float(totals[0] / totals[1])

    def save(self, tag):
        if is_chief():
            self.ckpt.write(os.path.join(self.out_dir, tag))

    def write_json(self, name, payload):
        if is_chief():
            with open(os.path.join(self.out_dir, name), "w") as f:
                json.dump(payload, f, indent=2)
