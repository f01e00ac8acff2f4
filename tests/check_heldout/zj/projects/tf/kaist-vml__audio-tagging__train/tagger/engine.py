import horovod.tensorflow as hvd
import tensorflow as tf

from .data import mixup


class Trainer:
    def __init__(self, model, optimizer, lr_fn, cfg, hooks=()):
        self.model, self.optimizer, self.lr_fn, self.cfg = model, optimizer, lr_fn, cfg
        self.hooks = list(hooks)
        self.step, self.metrics = 0, {}

    @tf.function
    def train_step(self, x, y):
        with tf.GradientTape() as tape:
            logits = self.model(x, training=True)
            loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=logits))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))
        return loss

    def fit(self, train_ds, steps_per_epoch, epochs):
        for h in self.hooks:
            h.before_train(self)
        it = iter(train_ds)
        for epoch in range(epochs):
            for _ in range(steps_per_epoch):
                x, y = next(it)
                if self.cfg.mixup_alpha > 0:
                    x, y = mixup(x, y, self.cfg.mixup_alpha)
                self.optimizer.learning_rate.assign(self.lr_fn(self.step))
                loss = self.train_step(x, y)
                if self.step == 0:
                    # weights/slots exist only after the first apply_gradients
                    hvd.broadcast_variables(self.model.variables, root_rank=0)
                    hvd.broadcast_variables(self.optimizer.variables, root_rank=0)
                self.step += 1
                logs = {"loss": float(loss), "lr": float(self.optimizer.learning_rate)}
                for h in self.hooks:
                    h.after_step(self, logs)
            for h in self.hooks:
                h.after_epoch(self, epoch)
