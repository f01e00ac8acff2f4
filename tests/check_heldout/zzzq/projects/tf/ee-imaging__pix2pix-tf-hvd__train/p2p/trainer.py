import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from . import dist
from .models import unet_generator, patch_discriminator


class Pix2Pix:
    def __init__(self, opt):
        self.opt = opt
        self.G = unet_generator(opt.img_size)
        self.D = patch_discriminator(opt.img_size)
        self.g_opt = keras.optimizers.Adam(opt.lr_g * dist.WORLD_SIZE, beta_1=0.5)
        self.d_opt = keras.optimizers.Adam(opt.lr_d * dist.WORLD_SIZE, beta_1=0.5)
        self.bce = keras.losses.BinaryCrossentropy(from_logits=True)
        self.ckpt = tf.train.Checkpoint(G=self.G, D=self.D, g_opt=self.g_opt, d_opt=self.d_opt)

    @tf.function
    def train_step(self, a, b, first_batch):
        with tf.GradientTape() as g_tape, tf.GradientTape() as d_tape:
            fake = self.G(a, training=True)
            real_out = self.D([a, b], training=True)
            fake_out = self.D([a, fake], training=True)
            gan = self.bce(tf.ones_like(fake_out), fake_out)
            l1 = tf.reduce_mean(tf.abs(b - fake))
            g_loss = gan + self.opt.lambda_l1 * l1
            d_loss = self.bce(tf.ones_like(real_out), real_out) + self.bce(tf.zeros_like(fake_out), fake_out)
        g_tape = hvd.DistributedGradientTape(g_tape)
        d_tape = hvd.DistributedGradientTape(d_tape)
        g_grads = g_tape.gradient(g_loss, self.G.trainable_variables)
        d_grads = d_tape.gradient(d_loss, self.D.trainable_variables)
        self.g_opt.apply_gradients(zip(g_grads, self.G.trainable_variables))
        self.d_opt.apply_gradients(zip(d_grads, self.D.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(self.G.variables + self.D.variables, root_rank=0)
            hvd.broadcast_variables(self.g_opt.variables + self.d_opt.variables, root_rank=0)
        return g_loss, d_loss, l1

    def psnr_sum(self, ds):
        tot, n = 0.0, 0
        for a, b in ds:
            fake = self.G(a, training=True)
            p = tf.image.psnr((fake + 1) / 2, (b + 1) / 2, max_val=1.0)
            tot += float(tf.reduce_sum(p)); n += int(tf.shape(p)[0])
        return tot, n

    def save_samples(self, a, b, epoch):
        fake = self.G(a, training=True)
        row = np.concatenate([a[0], b[0], fake[0]], axis=1)
        keras.utils.save_img(os.path.join(self.opt.sample_dir, "epoch_%03d.png" % epoch), (row + 1) * 127.5,
                             scale=False)
