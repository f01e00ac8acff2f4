"""Train step with gradient accumulation (large effective batch on small GPUs)."""
import tensorflow as tf
import horovod.tensorflow as hvd


class AccumulatingStepper:
    def __init__(self, model, optimizer, loss_fn, accum_steps=4):
        self.model, self.optimizer, self.loss_fn = model, optimizer, loss_fn
        self.accum_steps = accum_steps
        self.acc = [tf.Variable(tf.zeros_like(v), trainable=False) for v in model.trainable_variables]
        self.counter = tf.Variable(0, dtype=tf.int64, trainable=False)

    @tf.function
    def step(self, x, y):
        with tf.GradientTape() as tape:
            pred = self.model(x, training=True)
            loss = self.loss_fn(y, pred)
        grads = tape.gradient(loss, self.model.trainable_variables)
        for a, g in zip(self.acc, grads):
            a.assign_add(g / self.accum_steps)
        self.counter.assign_add(1)
        if self.counter % self.accum_steps == 0:
            self.optimizer.apply_gradients(zip([a.read_value() for a in self.acc],
                                               self.model.trainable_variables))
            for a in self.acc:
                a.assign(tf.zeros_like(a))
        # loss averaged over ranks for logging
        return hvd.allreduce(loss, name="train_loss")

    @tf.function
    def evaluate(self, x, y):
        pred = self.model(x, training=False)
        return self.loss_fn(y, pred), tf.reduce_mean(tf.abs(pred - y))
