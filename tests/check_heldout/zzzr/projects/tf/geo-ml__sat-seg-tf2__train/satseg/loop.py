import tensorflow as tf
import horovod.tensorflow as hvd


class SegLoop:
    def __init__(self, model, optimizer):
        self.model = model
        self.opt = optimizer
        self.loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    @tf.function
    def train_step(self, x, y, first_batch):
        with tf.GradientTape() as tape:
            logits = self.model(x, training=True)
            loss = self.loss_fn(y, logits)
        dist_tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.opt.apply_gradients(zip(grads, self.model.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(self.model.variables, root_rank=0)
            hvd.broadcast_variables(self.opt.variables, root_rank=0)
        return loss

    def evaluate(self, ds):
        tot, n = 0.0, 0
        for x, y in ds:
            logits = self.model(x, training=False)
            tot += float(self.loss_fn(y, logits)) * int(x.shape[0])
            n += int(x.shape[0])
        s = hvd.allreduce(tf.constant([tot, float(n)], tf.float64), op=hvd.Sum, name="val_loss")
        return float(s[0] / s[1])
