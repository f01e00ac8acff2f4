"""Checkpoints + a 4x4 grid of samples from a fixed seed, written every few epochs."""
import os

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import tensorflow as tf


class Snapshotter:
    def __init__(self, ckpt_dir, generator, discriminator, gen_opt, disc_opt, noise_dim=100, max_to_keep=3):
        self.generator = generator
        self.seed = tf.random.stateless_normal([16, noise_dim], seed=[42, 0])
        self.ckpt_dir = ckpt_dir
        self.ckpt = tf.train.Checkpoint(generator_optimizer=gen_opt, discriminator_optimizer=disc_opt,
                                        generator=generator, discriminator=discriminator)
        self.manager = tf.train.CheckpointManager(self.ckpt, ckpt_dir, max_to_keep=max_to_keep)

    def save(self, epoch):
        path = self.manager.save(checkpoint_number=epoch)
        self._sample_grid(os.path.join(self.ckpt_dir, f"image_at_epoch_{epoch:04d}.png"))
        return path

    def _sample_grid(self, path):
        preds = self.generator(self.seed, training=False)
        fig = plt.figure(figsize=(4, 4))
        for i in range(preds.shape[0]):
            plt.subplot(4, 4, i + 1)
            plt.imshow(preds[i, :, :, 0] * 127.5 + 127.5, cmap="gray")
            plt.axis("off")
        fig.savefig(path)
        plt.close(fig)
