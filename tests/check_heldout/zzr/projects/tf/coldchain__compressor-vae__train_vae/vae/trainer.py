import tensorflow as tf
import horovod.tensorflow as hvd

from .model import elbo_terms


class VAETrainer:
    def __init__(self, model, optimizer, beta=1.0):
        self.model = model
        self.optimizer = optimizer
        self.beta = beta

    @tf.function
    def train_step(self, x, first_batch):
        with tf.GradientTape() as tape:
            recon, mu, logvar = self.model(x, training=True)
            rec, kl = elbo_terms(x, recon, mu, logvar)
            loss = tf.reduce_mean(rec + self.beta * kl)
        dist_tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(self.model.variables, root_rank=0)
            hvd.broadcast_variables(self.optimizer.variables, root_rank=0)
        return loss

    @tf.function
    def eval_step(self, x):
        recon, mu, logvar = self.model(x, training=False)
        rec, kl = elbo_terms(x, recon, mu, logvar)
        return rec, rec + self.beta * kl

    def evaluate(self, ds):
        losses, errs = [], []
        for x in ds:
            err, loss = self.eval_step(x)
            losses.append(loss.numpy())
            errs.append(err.numpy())
        import numpy as np
        return float(np.concatenate(losses).mean()), np.concatenate(errs)
