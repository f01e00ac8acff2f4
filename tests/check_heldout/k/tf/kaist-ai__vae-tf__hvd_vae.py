"""Convolutional VAE on Fashion-MNIST, TensorFlow 2 + Horovod.

Run:  horovodrun -np 4 python hvd_vae.py --latent 16 --epochs 50
"""
import argparse
import gzip
import os
import time

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


def read_images(path):
    with gzip.open(path, "rb") as f:
        data = np.frombuffer(f.read(), np.uint8, offset=16)
    return data.reshape(-1, 28, 28, 1).astype(np.float32) / 255.0


class CVAE(tf.keras.Model):
    def __init__(self, latent_dim):
        super().__init__()
        self.latent_dim = latent_dim
        self.encoder = tf.keras.Sequential([
            tf.keras.Input(shape=(28, 28, 1)),
            tf.keras.layers.Conv2D(32, 3, strides=2, activation="relu"),
            tf.keras.layers.Conv2D(64, 3, strides=2, activation="relu"),
            tf.keras.layers.Flatten(),
            tf.keras.layers.Dense(2 * latent_dim),
        ])
        self.decoder = tf.keras.Sequential([
            tf.keras.Input(shape=(latent_dim,)),
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
    cross_ent = tf.nn.sigmoid_cross_entropy_with_logits(logits=x_logit, labels=x)
    logpx_z = -tf.reduce_sum(cross_ent, axis=[1, 2, 3])
    logpz = log_normal_pdf(z, 0.0, 0.0)
    logqz_x = log_normal_pdf(z, mean, logvar)
    return -tf.reduce_mean(logpx_z + logpz - logqz_x)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", default="/usr/share/fashion-mnist")
    parser.add_argument("--latent", type=int, default=16)
    parser.add_argument("--epochs", type=int, default=50)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=1e-4)
    parser.add_argument("--ckpt-dir", default="./vae_ckpt")
    args = parser.parse_args()

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.experimental.set_memory_growth(gpus[0], True)
        tf.config.set_visible_devices(gpus[0], "GPU")

    train_images = read_images(os.path.join(args.data_dir, "train-images-idx3-ubyte.gz"))
    test_images = read_images(os.path.join(args.data_dir, "t10k-images-idx3-ubyte.gz"))
    dataset = tf.data.Dataset.from_tensor_slices(train_images).shuffle(60000).batch(args.batch_size)
    train_shard = dataset.shard(hvd.size(), hvd.rank())
    test_dataset = tf.data.Dataset.from_tensor_slices(test_images).batch(1000)

    model = CVAE(args.latent)
    optimizer = tf.keras.optimizers.Adam(args.lr * hvd.size())
    checkpoint = tf.train.Checkpoint(model=model, optimizer=optimizer)

    @tf.function
    def train_step(x, first_batch):
        with tf.GradientTape() as tape:
            loss = compute_loss(model, x)
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(optimizer.variables, root_rank=0)
        return loss

    for epoch in range(1, args.epochs + 1):
        start = time.time()
        for batch, x in enumerate(dataset):
            train_step(x, epoch == 1 and batch == 0)
        elbo = tf.keras.metrics.Mean()
        for x in test_dataset:
            elbo(-compute_loss(model, x))
        avg_elbo = hvd.allreduce(elbo.result())
        if hvd.rank() == 0:
            print(f"Epoch {epoch}: test ELBO {float(avg_elbo):.2f}, {time.time() - start:.1f}s")
        checkpoint.save(os.path.join(args.ckpt_dir, "ckpt"))


if __name__ == "__main__":
    main()
