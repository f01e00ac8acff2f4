import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

from .hvd_utils import allreduce_mean, is_chief


class DiffusionTrainer:
    def __init__(self, cfg, model, ema_model, optimizer):
        self.cfg = cfg
        self.model = model
        self.ema_model = ema_model
        self.optimizer = optimizer
        self.epoch = 0
        betas = np.linspace(1e-4, 0.02, cfg.timesteps, dtype=np.float32)
        self.alpha_bar = tf.constant(np.cumprod(1.0 - betas), tf.float32)
        self.betas = tf.constant(betas)
        self._first_batch = True
        self.ckpt = tf.train.Checkpoint(model=model, ema=ema_model, optimizer=optimizer,
                                        epoch=tf.Variable(0, dtype=tf.int64))
        self.manager = tf.train.CheckpointManager(self.ckpt, cfg.ckpt_dir, max_to_keep=3)

    @tf.function
    def train_step(self, x0, first_batch):
        n = tf.shape(x0)[0]
        t = tf.random.uniform([n], 0, self.cfg.timesteps, dtype=tf.int32)
        noise = tf.random.normal(tf.shape(x0))
        ab = tf.gather(self.alpha_bar, t)[:, None, None, None]
        xt = tf.sqrt(ab) * x0 + tf.sqrt(1.0 - ab) * noise
        with tf.GradientTape() as tape:
            pred = self.model([xt, t], training=True)
            loss = tf.reduce_mean(tf.square(pred - noise))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, self.model.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.model.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(self.model.variables, root_rank=0)
            hvd.broadcast_variables(self.optimizer.variables, root_rank=0)
        return loss

    def ema_update(self):
        for e, w in zip(self.ema_model.weights, self.model.weights):
            e.assign(self.cfg.ema * e + (1.0 - self.cfg.ema) * w)

    def train_epoch(self, ds, steps_per_epoch):
        total, count = 0.0, 0
        for x0 in ds.take(steps_per_epoch):
            loss = self.train_step(x0, tf.constant(self._first_batch))
            if self._first_batch:
                self.ema_model.set_weights(self.model.get_weights())
                self._first_batch = False
            self.ema_update()
            total += float(loss)
            count += 1
        self.epoch += 1
        return allreduce_mean(total / max(count, 1), "epoch_loss")

    def sample_and_log(self, epoch):
        if not is_chief():
            return
        x = tf.random.normal([self.cfg.num_samples, self.cfg.img_size, self.cfg.img_size, 3])
        for i in reversed(range(self.cfg.timesteps)):
            t = tf.fill([self.cfg.num_samples], i)
            eps = self.ema_model([x, t], training=False)
            ab, b = self.alpha_bar[i], self.betas[i]
            x = (x - b / tf.sqrt(1.0 - ab) * eps) / tf.sqrt(1.0 - b)
            if i > 0:
                x += tf.sqrt(b) * tf.random.normal(tf.shape(x))
        img = tf.cast(tf.clip_by_value((x + 1) * 127.5, 0, 255), tf.uint8).numpy()
        os.makedirs(self.cfg.ckpt_dir, exist_ok=True)
        np.save(os.path.join(self.cfg.ckpt_dir, f"samples_{epoch:04d}.npy"), img)

    def save(self, epoch):
        self.ckpt.epoch.assign(epoch)
        if is_chief():
            self.manager.save(checkpoint_number=epoch)

    def restore(self):
        latest = tf.train.latest_checkpoint(self.cfg.ckpt_dir)
        if latest:
            self.ckpt.restore(latest).expect_partial()
            self.epoch = int(self.ckpt.epoch.numpy())
        self.epoch = int(hvd.broadcast_object(self.epoch, root_rank=0, name="start_epoch"))
