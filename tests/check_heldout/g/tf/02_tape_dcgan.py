"""DCGAN on CIFAR-10 / CelebA crops with Horovod (TF2 custom loop, no tf.distribute).

Two networks, two optimizers, two DistributedGradientTapes.
    mpirun -np 4 python 02_tape_dcgan.py --data cifar_train.npy --out runs/dcgan
"""
import argparse
import logging
import os
import time

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
log = logging.getLogger("dcgan")

LATENT = 128


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--data", required=True, help="uint8 array N x 32 x 32 x 3")
    p.add_argument("--out", default="runs/dcgan")
    p.add_argument("--epochs", type=int, default=50)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--lr", type=float, default=2e-4)
    p.add_argument("--sample-every", type=int, default=5)
    return p.parse_args()


def setup_gpu():
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def make_generator():
    return tf.keras.Sequential([
        tf.keras.Input(shape=(LATENT,)),
        tf.keras.layers.Dense(4 * 4 * 256, use_bias=False),
        tf.keras.layers.BatchNormalization(),
        tf.keras.layers.LeakyReLU(0.2),
        tf.keras.layers.Reshape((4, 4, 256)),
        tf.keras.layers.Conv2DTranspose(128, 4, strides=2, padding="same", use_bias=False),
        tf.keras.layers.BatchNormalization(),
        tf.keras.layers.LeakyReLU(0.2),
        tf.keras.layers.Conv2DTranspose(64, 4, strides=2, padding="same", use_bias=False),
        tf.keras.layers.BatchNormalization(),
        tf.keras.layers.LeakyReLU(0.2),
        tf.keras.layers.Conv2DTranspose(3, 4, strides=2, padding="same", activation="tanh"),
    ], name="generator")


def make_discriminator():
    return tf.keras.Sequential([
        tf.keras.Input(shape=(32, 32, 3)),
        tf.keras.layers.Conv2D(64, 4, strides=2, padding="same"),
        tf.keras.layers.LeakyReLU(0.2),
        tf.keras.layers.Conv2D(128, 4, strides=2, padding="same"),
        tf.keras.layers.BatchNormalization(),
        tf.keras.layers.LeakyReLU(0.2),
        tf.keras.layers.Conv2D(256, 4, strides=2, padding="same"),
        tf.keras.layers.LeakyReLU(0.2),
        tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(1),
    ], name="discriminator")


def load_data(path, batch):
    imgs = np.load(path).astype("float32") / 127.5 - 1.0
    ds = tf.data.Dataset.from_tensor_slices(imgs)
    ds = ds.shard(hvd.size(), hvd.rank())
    ds = ds.shuffle(20000).batch(batch, drop_remainder=True).prefetch(tf.data.AUTOTUNE)
    return ds


def main():
    args = parse_args()
    hvd.init()
    setup_gpu()

    gen = make_generator()
    disc = make_discriminator()
    bce = tf.keras.losses.BinaryCrossentropy(from_logits=True)

    # linear scaling for both nets
    g_opt = tf.keras.optimizers.Adam(args.lr * hvd.size(), beta_1=0.5)
    d_opt = tf.keras.optimizers.Adam(args.lr * hvd.size(), beta_1=0.5)

    ds = load_data(args.data, args.batch)

    @tf.function
    def train_step(real, first_batch):
        noise = tf.random.normal([tf.shape(real)[0], LATENT])
        with tf.GradientTape() as g_tape, tf.GradientTape() as d_tape:
            fake = gen(noise, training=True)
            real_logits = disc(real, training=True)
            fake_logits = disc(fake, training=True)
            d_loss = bce(tf.ones_like(real_logits), real_logits) + \
                bce(tf.zeros_like(fake_logits), fake_logits)
            g_loss = bce(tf.ones_like(fake_logits), fake_logits)

        g_tape = hvd.DistributedGradientTape(g_tape)
        d_tape = hvd.DistributedGradientTape(d_tape)
        g_grads = g_tape.gradient(g_loss, gen.trainable_variables)
        d_grads = d_tape.gradient(d_loss, disc.trainable_variables)
        g_opt.apply_gradients(zip(g_grads, gen.trainable_variables))
        d_opt.apply_gradients(zip(d_grads, disc.trainable_variables))

        if first_batch:
            hvd.broadcast_variables(gen.variables, root_rank=0)
            hvd.broadcast_variables(g_opt.variables(), root_rank=0)
        return g_loss, d_loss

    ckpt = tf.train.Checkpoint(gen=gen, disc=disc, g_opt=g_opt, d_opt=d_opt)
    manager = tf.train.CheckpointManager(ckpt, os.path.join(args.out, "ckpt"), max_to_keep=3)
    fixed_noise = tf.random.normal([16, LATENT], seed=1234)

    step = 0
    for epoch in range(args.epochs):
        t0 = time.time()
        g_sum, d_sum, n = 0.0, 0.0, 0
        for real in ds:
            g_loss, d_loss = train_step(real, step == 0)
            step += 1
            g_sum += float(g_loss)
            d_sum += float(d_loss)
            n += 1

        g_avg = hvd.allreduce(tf.constant(g_sum / max(n, 1)), name="g_loss")
        d_avg = hvd.allreduce(tf.constant(d_sum / max(n, 1)), name="d_loss")

        if hvd.rank() == 0:
            log.info("epoch %d  G %.4f  D %.4f  %.1fs", epoch, float(g_avg), float(d_avg),
                     time.time() - t0)
            manager.save()
            if epoch % args.sample_every == 0:
                samples = gen(fixed_noise, training=False).numpy()
                np.save(os.path.join(args.out, f"samples_{epoch:03d}.npy"), samples)


if __name__ == "__main__":
    main()
