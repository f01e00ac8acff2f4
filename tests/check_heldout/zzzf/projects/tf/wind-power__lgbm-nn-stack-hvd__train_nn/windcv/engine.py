import tensorflow as tf
import horovod.tensorflow as hvd

from .distrib import global_sum


class FoldEngine:
    def __init__(self, model, lr):
        self.model = model
        self.opt = tf.keras.optimizers.Adam(learning_rate=lr, clipnorm=None)
        self._synced = False

    @tf.function(reduce_retracing=True)
    def _step(self, x, y):
        with tf.GradientTape() as tape:
            pred = tf.squeeze(self.model(x, training=True), -1)
            loss = tf.reduce_mean(tf.abs(pred - y))
        tape = hvd.DistributedGradientTape(tape, compression=hvd.Compression.fp16)
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.opt.apply_gradients(zip(grads, self.model.trainable_variables))
        return loss

    def train_step(self, x, y):
        loss = self._step(x, y)
        if not self._synced:
            # after the first step so the optimizer slots exist
            hvd.broadcast_variables(self.model.variables, root_rank=0)
            hvd.broadcast_variables(self.opt.variables, root_rank=0)
            self._synced = True
        return loss

    def evaluate(self, x, y, batch=4096):
        abs_err, n = 0.0, 0
        for s in range(0, len(x), batch):
            p = self.model(x[s:s + batch], training=False).numpy().ravel()
            abs_err += float(abs(p - y[s:s + batch]).sum())
            n += len(p)
        tot = global_sum([abs_err, n], "val_mae")
        return tot[0] / tot[1]
