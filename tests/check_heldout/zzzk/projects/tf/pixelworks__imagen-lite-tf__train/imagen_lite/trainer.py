import math
import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

from .distributed import log0
from .metrics import DistributedMean, GatheredFeatureStats


def logsnr_schedule_cosine(t, logsnr_min=-20.0, logsnr_max=20.0):
    b = math.atan(math.exp(-0.5 * logsnr_max))
    a = math.atan(math.exp(-0.5 * logsnr_min)) - b
    return -2.0 * tf.math.log(tf.tan(a * t + b))


class Trainer:
    def __init__(self, hp, model, optimizer, model_dir):
        self.hp = hp
        self.model = model
        self.optimizer = optimizer
        self.model_dir = model_dir
        self.step = 0
        self.ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer)
        self.manager = tf.train.CheckpointManager(self.ckpt, model_dir, max_to_keep=5)
        self.ema = None

    def _loss(self, x, y, training=True):
        b = tf.shape(x)[0]
        t = tf.random.uniform([b])
        logsnr = logsnr_schedule_cosine(t)
        alpha = tf.sqrt(tf.sigmoid(logsnr))[:, None, None, None]
        sigma = tf.sqrt(tf.sigmoid(-logsnr))[:, None, None, None]
        eps = tf.random.normal(tf.shape(x))
        z = alpha * x + sigma * eps
        if training:
            drop = tf.random.uniform([b]) < self.hp.cond_drop
            y = tf.where(drop, tf.fill([b], self.model.null_class), y)
        v_pred = self.model(z, logsnr, y)
        v = alpha * eps - sigma * x
        return tf.reduce_mean(tf.square(v_pred - v))

    @tf.function
    def train_step(self, x, y):
        with tf.GradientTape() as tape:
            loss = self._loss(x, y)
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))
        return loss

    def restore_or_init(self, sample_batch):
        x, y = sample_batch
        self.model(x, tf.zeros([tf.shape(x)[0]]), y)        # build
        self.optimizer.build(self.model.trainable_variables)
        latest = tf.train.latest_checkpoint(self.model_dir)
        if latest is not None:
            self.ckpt.restore(latest)
            self.step = int(latest.rsplit("-", 1)[-1])
        hvd.broadcast_variables(self.model.variables, root_rank=0)
        hvd.broadcast_variables(self.optimizer.variables, root_rank=0)
        self.step = hvd.broadcast_object(self.step, root_rank=0)
        self.ema = [tf.Variable(v, trainable=False) for v in self.model.trainable_variables]

    def _ema_update(self):
        d = self.hp.ema
        for e, v in zip(self.ema, self.model.trainable_variables):
            e.assign(d * e + (1 - d) * v)

    def train(self, train_ds, eval_ds):
        meter = DistributedMean("train_loss")
        for x, y in train_ds:
            loss = self.train_step(x, y)
            self._ema_update()
            meter.update(loss)
            self.step += 1
            if self.step % self.hp.log_every == 0:
                log0(f"step {self.step} loss {meter.result():.5f}")
                meter.reset()
            if self.step % self.hp.eval_every == 0:
                self.evaluate(eval_ds)
            if self.step % self.hp.save_every == 0 and hvd.rank() == 0:
                self.manager.save(checkpoint_number=self.step)
            if self.step >= self.hp.train_steps:
                break

    def evaluate(self, eval_ds):
        loss_m = DistributedMean("eval_loss")
        stats = GatheredFeatureStats()
        for i, (x, y) in enumerate(eval_ds):
            if i >= self.hp.eval_batches:
                break
            loss_m.update(self._loss(x, y, training=False), int(x.shape[0]))
            stats.update(self.model(x, tf.zeros([x.shape[0]]), y, return_features=True))
        mu, cov = stats.result()
        log0(f"eval @ {self.step}: loss {loss_m.result():.5f}  feat_mu {np.linalg.norm(mu):.3f}  tr_cov {np.trace(cov):.3f}")
