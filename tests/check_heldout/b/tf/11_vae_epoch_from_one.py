"""Convolutional VAE on MNIST (tfds), multi-GPU via Horovod.

horovodrun -np 4 python 11_vae_epoch_from_one.py --epochs 30 --latent 16
"""
import argparse
import os

import numpy as np
import tensorflow as tf
import tensorflow_datasets as tfds
import horovod.tensorflow as hvd


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--latent", type=int, default=16)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--outdir", default="vae_out")
    return p.parse_args()


class CVAE(tf.keras.Model):
    def __init__(self, latent_dim):
        super().__init__()
        self.latent_dim = latent_dim
        self.encoder = tf.keras.Sequential([
            tf.keras.layers.InputLayer(input_shape=(28, 28, 1)),
            tf.keras.layers.Conv2D(32, 3, strides=2, activation="relu"),
            tf.keras.layers.Conv2D(64, 3, strides=2, activation="relu"),
            tf.keras.layers.Flatten(),
            tf.keras.layers.Dense(2 * latent_dim),
        ])
        self.decoder = tf.keras.Sequential([
            tf.keras.layers.InputLayer(input_shape=(latent_dim,)),
            tf.keras.layers.Dense(7 * 7 * 32, activation="relu"),
            tf.keras.layers.Reshape((7, 7, 32)),
            tf.keras.layers.Conv2DTranspose(64, 3, strides=2, padding="same", activation="relu"),
            tf.keras.layers.Conv2DTranspose(32, 3, strides=2, padding="same", activation="relu"),
            tf.keras.layers.Conv2DTranspose(1, 3, strides=1, padding="same"),
        ])

    def encode(self, x):
        mean, logvar = tf.split(self.encoder(x), 2, axis=1)
        return mean, logvar

    def reparameterize(self, mean, logvar):
        eps = tf.random.normal(shape=tf.shape(mean))
        return eps * tf.exp(logvar * 0.5) + mean

    def decode(self, z):
        return self.decoder(z)


def log_normal_pdf(sample, mean, logvar):
    log2pi = tf.math.log(2.0 * np.pi)
    return tf.reduce_sum(-0.5 * ((sample - mean) ** 2.0 * tf.exp(-logvar) + logvar + log2pi), axis=1)


def compute_loss(model, x):
    mean, logvar = model.encode(x)
    z = model.reparameterize(mean, logvar)
    x_logit = model.decode(z)
    ce = tf.nn.sigmoid_cross_entropy_with_logits(logits=x_logit, labels=x)
    logpx_z = -tf.reduce_sum(ce, axis=[1, 2, 3])
    logpz = log_normal_pdf(z, 0.0, 0.0)
    logqz_x = log_normal_pdf(z, mean, logvar)
    return -tf.reduce_mean(logpx_z + logpz - logqz_x)


def binarize(example):
    img = tf.cast(example["image"], tf.float32) / 255.0
    return tf.cast(img > 0.5, tf.float32)


def main():
    args = get_args()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    train = tfds.load("mnist", split="train")
    train = (train.shard(hvd.size(), hvd.rank())
             .map(binarize)
             .shuffle(60000 // hvd.size())
             .batch(args.batch_size))
    test = tfds.load("mnist", split="test").map(binarize).batch(1000)

    model = CVAE(args.latent)
    optimizer = tf.keras.optimizers.Adam(args.lr * hvd.size())

    @tf.function
    def train_step(x, first_batch):
        with tf.GradientTape() as tape:
            loss = compute_loss(model, x)
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(optimizer.variables(), root_rank=0)
        return loss

    os.makedirs(args.outdir, exist_ok=True)
    for epoch in range(1, args.epochs + 1):
        train_loss = tf.keras.metrics.Mean()
        for step, x in enumerate(train):
            train_loss(train_step(x, epoch == 0 and step == 0))
        elbo_train = hvd.allreduce(train_loss.result())

        test_loss = tf.keras.metrics.Mean()
        for x in test:
            test_loss(compute_loss(model, x))

        if hvd.rank() == 0:
            print("Epoch {:3d}  train ELBO {:.2f}  test ELBO {:.2f}".format(
                epoch, -float(elbo_train), -float(test_loss.result())))
        model.save_weights(os.path.join(args.outdir, "cvae_epoch%02d.h5" % epoch))


if __name__ == "__main__":
    main()
