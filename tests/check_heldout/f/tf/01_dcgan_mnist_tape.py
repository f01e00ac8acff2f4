"""DCGAN on MNIST, data-parallel with Horovod (TF2 custom loop).

Run: horovodrun -np 4 python 01_dcgan_mnist_tape.py --epochs 30
"""
import argparse
import os
import time

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=30)
parser.add_argument("--batch-size", type=int, default=128)
parser.add_argument("--latent-dim", type=int, default=100)
parser.add_argument("--lr", type=float, default=2e-4)
parser.add_argument("--out", default="./dcgan_out")
args = parser.parse_args()

hvd.init()

gpus = tf.config.experimental.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

# ---------------------------------------------------------------- data
(x_train, _), _ = tf.keras.datasets.mnist.load_data(path="mnist-%d.npz" % hvd.rank())
x_train = (x_train.astype("float32") - 127.5) / 127.5
x_train = x_train[..., np.newaxis]

dataset = tf.data.Dataset.from_tensor_slices(x_train)
dataset = dataset.shard(hvd.size(), hvd.rank())
dataset = dataset.shuffle(10000).batch(args.batch_size, drop_remainder=True)
dataset = dataset.prefetch(tf.data.AUTOTUNE)


# ---------------------------------------------------------------- models
def make_generator(latent_dim):
    return tf.keras.Sequential([
        tf.keras.layers.Dense(7 * 7 * 256, use_bias=False, input_shape=(latent_dim,)),
        tf.keras.layers.BatchNormalization(),
        tf.keras.layers.LeakyReLU(),
        tf.keras.layers.Reshape((7, 7, 256)),
        tf.keras.layers.Conv2DTranspose(128, 5, strides=1, padding="same", use_bias=False),
        tf.keras.layers.BatchNormalization(),
        tf.keras.layers.LeakyReLU(),
        tf.keras.layers.Conv2DTranspose(64, 5, strides=2, padding="same", use_bias=False),
        tf.keras.layers.BatchNormalization(),
        tf.keras.layers.LeakyReLU(),
        tf.keras.layers.Conv2DTranspose(1, 5, strides=2, padding="same", activation="tanh"),
    ])


def make_discriminator():
    return tf.keras.Sequential([
        tf.keras.layers.Conv2D(64, 5, strides=2, padding="same", input_shape=(28, 28, 1)),
        tf.keras.layers.LeakyReLU(),
        tf.keras.layers.Dropout(0.3),
        tf.keras.layers.Conv2D(128, 5, strides=2, padding="same"),
        tf.keras.layers.LeakyReLU(),
        tf.keras.layers.Dropout(0.3),
        tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(1),
    ])


generator = make_generator(args.latent_dim)
discriminator = make_discriminator()

bce = tf.keras.losses.BinaryCrossentropy(from_logits=True)

# scale the learning rate by the number of workers
g_opt = tf.keras.optimizers.Adam(args.lr * hvd.size(), beta_1=0.5)
d_opt = tf.keras.optimizers.Adam(args.lr * hvd.size(), beta_1=0.5)

ckpt = tf.train.Checkpoint(generator=generator, discriminator=discriminator,
                           g_opt=g_opt, d_opt=d_opt)
ckpt_dir = os.path.join(args.out, "ckpt")


@tf.function
def train_step(real, first_batch):
    noise = tf.random.normal([tf.shape(real)[0], args.latent_dim])
    with tf.GradientTape() as g_tape, tf.GradientTape() as d_tape:
        fake = generator(noise, training=True)
        real_logits = discriminator(real, training=True)
        fake_logits = discriminator(fake, training=True)
        g_loss = bce(tf.ones_like(fake_logits), fake_logits)
        d_loss = bce(tf.ones_like(real_logits), real_logits) + \
            bce(tf.zeros_like(fake_logits), fake_logits)

    g_tape = hvd.DistributedGradientTape(g_tape)
    d_tape = hvd.DistributedGradientTape(d_tape)
    g_grads = g_tape.gradient(g_loss, generator.trainable_variables)
    d_grads = d_tape.gradient(d_loss, discriminator.trainable_variables)
    g_opt.apply_gradients(zip(g_grads, generator.trainable_variables))
    d_opt.apply_gradients(zip(d_grads, discriminator.trainable_variables))

    # sync initial state from rank 0 after the first step (optimizer slots exist now)
    if first_batch:
        hvd.broadcast_variables(generator.variables, root_rank=0)
        hvd.broadcast_variables(g_opt.variables(), root_rank=0)
    return g_loss, d_loss


def save_samples(epoch, seed):
    imgs = generator(seed, training=False).numpy()
    fig = plt.figure(figsize=(4, 4))
    for i in range(imgs.shape[0]):
        plt.subplot(4, 4, i + 1)
        plt.imshow(imgs[i, :, :, 0] * 127.5 + 127.5, cmap="gray")
        plt.axis("off")
    fig.savefig(os.path.join(args.out, "epoch_%03d.png" % epoch))
    plt.close(fig)


if hvd.rank() == 0:
    os.makedirs(args.out, exist_ok=True)
fixed_seed = tf.random.normal([16, args.latent_dim], seed=1234)

g_mean = tf.keras.metrics.Mean()
d_mean = tf.keras.metrics.Mean()

first = True
for epoch in range(args.epochs):
    t0 = time.time()
    g_mean.reset_states()
    d_mean.reset_states()
    for real in dataset:
        g_loss, d_loss = train_step(real, first)
        first = False
        g_mean.update_state(g_loss)
        d_mean.update_state(d_loss)

    g_avg = hvd.allreduce(g_mean.result(), name="g_loss")
    d_avg = hvd.allreduce(d_mean.result(), name="d_loss")

    if hvd.rank() == 0:
        print("epoch %d  g_loss %.4f  d_loss %.4f  (%.1fs)"
              % (epoch + 1, float(g_avg), float(d_avg), time.time() - t0))
        save_samples(epoch + 1, fixed_seed)
        if (epoch + 1) % 5 == 0:
            ckpt.save(os.path.join(ckpt_dir, "dcgan"))
