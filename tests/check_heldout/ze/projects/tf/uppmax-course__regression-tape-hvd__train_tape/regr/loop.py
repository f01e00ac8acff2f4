import tensorflow as tf

import horovod.tensorflow as hvd

mse = tf.keras.losses.MeanSquaredError()


class Loop:
    def __init__(self, model, optimizer):
        self.model, self.optimizer = model, optimizer

    @tf.function
    def _step(self, x, y):
        with tf.GradientTape() as tape:
            loss = mse(y, self.model(x, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))
        return loss

    def train_epoch(self, ds, steps, first_epoch=False):
        total = 0.0
        for i, (x, y) in enumerate(ds.take(steps)):
            loss = self._step(x, y)
            if first_epoch and i == 0:
                # after the first update the optimizer has its slots: sync everything from rank 0
                hvd.broadcast_variables(self.model.variables, root_rank=0)
                hvd.broadcast_variables(self.optimizer.variables, root_rank=0)
            total += float(loss)
        # equal number of equal-size batches on every rank: mean of the rank means is the global mean
        return float(hvd.allreduce(tf.constant(total / steps), name="train_mse"))

    def evaluate(self, ds):
        se, n = 0.0, 0
        for x, y in ds:
            se += float(tf.reduce_sum(tf.square(self.model(x, training=False) - y)))
            n += int(x.shape[0])
        return se / n
