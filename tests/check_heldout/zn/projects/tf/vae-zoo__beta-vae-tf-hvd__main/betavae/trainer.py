from dataclasses import dataclass

import tensorflow as tf
import horovod.tensorflow as hvd


@dataclass
class TrainerConfig:
    lr: float = 5e-4
    beta: float = 1000.0
    max_capacity: float = 25.0
    capacity_steps: int = 100_000
    distributed: bool = False  # set True to allreduce gradients with hvd.DistributedGradientTape


class Trainer:
    def __init__(self, model, cfg: TrainerConfig):
        self.model, self.cfg = model, cfg
        self.optimizer = tf.keras.optimizers.Adam(cfg.lr, beta_1=0.9, beta_2=0.999)
        self.step = tf.Variable(0, dtype=tf.int64, trainable=False)

    def _losses(self, x, training):
        logits, mu, logvar = self.model(x, training=training)
        recon = tf.reduce_mean(tf.reduce_sum(
            tf.nn.sigmoid_cross_entropy_with_logits(labels=x, logits=logits), axis=[1, 2, 3]))
        kl = tf.reduce_mean(tf.reduce_sum(0.5 * (tf.exp(logvar) + mu ** 2 - 1.0 - logvar), axis=1))
        return recon, kl

    @tf.function
    def train_step(self, x, first_batch=False):
        c = tf.minimum(self.cfg.max_capacity,
                       self.cfg.max_capacity * tf.cast(self.step, tf.float32) / self.cfg.capacity_steps)
        with tf.GradientTape() as tape:
            recon, kl = self._losses(x, training=True)
            loss = recon + self.cfg.beta * tf.abs(kl - c)
        if self.cfg.distributed:
            tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(self.model.variables, root_rank=0)
            hvd.broadcast_variables(self.optimizer.variables, root_rank=0)
        self.step.assign_add(1)
        return {"loss": loss, "recon": recon, "kl": kl, "capacity": c}

    def evaluate(self, ds):
        recon_sum, kl_sum, n = 0.0, 0.0, 0
        for x in ds:
            r, k = self._losses(x, training=False)
            recon_sum += float(r)
            kl_sum += float(k)
            n += 1
        # every worker evaluates the same number of equal batches: a mean of means is exact
        means = hvd.allreduce(tf.constant([recon_sum / max(n, 1), kl_sum / max(n, 1)]), name="eval_means")
        return {"recon": float(means[0]), "kl": float(means[1])}
