import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd
from PIL import Image

from .nets import make_generator, make_critic


class WGANGPTrainer:
    def __init__(self, cfg, world):
        self.cfg = cfg
        self.G = make_generator(cfg.latent_dim, cfg.image_size)
        self.D = make_critic(cfg.image_size)
        self.G_ema = make_generator(cfg.latent_dim, cfg.image_size)
        self.G_ema.set_weights(self.G.get_weights())
        # lr follows the global batch: configs give lrs for global_batch_size, which is split over workers
        self.g_opt = keras.optimizers.Adam(cfg.g_lr, beta_1=0.0, beta_2=0.9)
        self.d_opt = keras.optimizers.Adam(cfg.d_lr, beta_1=0.0, beta_2=0.9)
        self.d_loss = keras.metrics.Mean()
        self.g_loss = keras.metrics.Mean()
        self.gp = keras.metrics.Mean()
        self.ckpt = tf.train.Checkpoint(G=self.G, D=self.D, G_ema=self.G_ema, g_opt=self.g_opt, d_opt=self.d_opt,
                                        epoch=tf.Variable(0, dtype=tf.int64))
        self.manager = tf.train.CheckpointManager(self.ckpt, cfg.ckpt_dir, max_to_keep=cfg.keep_ckpts)

    def gradient_penalty(self, real, fake):
        a = tf.random.uniform([tf.shape(real)[0], 1, 1, 1], 0.0, 1.0)
        x = a * real + (1.0 - a) * fake
        with tf.GradientTape() as t:
            t.watch(x)
            out = self.D(x, training=True)
        g = t.gradient(out, x)
        norm = tf.sqrt(tf.reduce_sum(tf.square(g), axis=[1, 2, 3]) + 1e-12)
        return tf.reduce_mean((norm - 1.0) ** 2)

    @tf.function
    def d_step(self, real):
        z = tf.random.normal([tf.shape(real)[0], self.cfg.latent_dim])
        with tf.GradientTape() as tape:
            fake = self.G(z, training=True)
            gp = self.gradient_penalty(real, fake)
            loss = tf.reduce_mean(self.D(fake, training=True)) - tf.reduce_mean(self.D(real, training=True)) \
                + self.cfg.gp_weight * gp
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, self.D.trainable_variables)
        self.d_opt.apply_gradients(zip(grads, self.D.trainable_variables))
        self.d_loss.update_state(loss)
        self.gp.update_state(gp)

    @tf.function
    def g_step(self, batch):
        z = tf.random.normal([batch, self.cfg.latent_dim])
        with tf.GradientTape() as tape:
            loss = -tf.reduce_mean(self.D(self.G(z, training=True), training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, self.G.trainable_variables)
        self.g_opt.apply_gradients(zip(grads, self.G.trainable_variables))
        for we, w in zip(self.G_ema.weights, self.G.weights):
            we.assign(self.cfg.ema * we + (1.0 - self.cfg.ema) * w)
        self.g_loss.update_state(loss)

    def sync(self):
        hvd.broadcast_variables(self.G.variables, root_rank=0)
        hvd.broadcast_variables(self.D.variables, root_rank=0)
        hvd.broadcast_variables(self.G_ema.variables, root_rank=0)
        hvd.broadcast_variables(self.g_opt.variables, root_rank=0)
        hvd.broadcast_variables(self.d_opt.variables, root_rank=0)

    def epoch_metrics(self):
        vals = tf.stack([self.d_loss.result(), self.g_loss.result(), self.gp.result()])
        vals = hvd.allreduce(vals, op=hvd.Average, name="epoch_metrics").numpy()
        for m in (self.d_loss, self.g_loss, self.gp):
            m.reset_state()
        return dict(zip(["d_loss", "g_loss", "gp"], vals))

    def sample_grid(self, z, path):
        x = self.G_ema(z, training=False).numpy()
        x = ((x + 1) * 127.5).clip(0, 255).astype(np.uint8)
        n = int(np.sqrt(len(x)))
        grid = x[:n * n].reshape(n, n, *x.shape[1:]).swapaxes(1, 2).reshape(n * x.shape[1], n * x.shape[2], 3)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        Image.fromarray(grid).save(path)
