#!/usr/bin/env python
"""DCGAN on 28x28 images with custom training loops.

Runs with Horovod when launched by horovodrun/mpirun (detected from the environment),
otherwise as a single process. Set TRAIN_BACKEND=single to force one process.
"""
import argparse
import os
import time

import numpy as np
import tensorflow as tf
import keras
from keras import layers

_launched_by_mpi = any(k in os.environ for k in ("OMPI_COMM_WORLD_RANK", "HOROVOD_RANK", "PMI_RANK"))
BACKEND = os.environ.get("TRAIN_BACKEND", "horovod" if _launched_by_mpi else "single")

if BACKEND == "horovod":
    import horovod.tensorflow as hvd
    hvd.init()
    RANK, SIZE, LOCAL_RANK = hvd.rank(), hvd.size(), hvd.local_rank()
else:
    hvd = None
    RANK, SIZE, LOCAL_RANK = 0, 1, 0

gpus = tf.config.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.set_visible_devices(gpus[LOCAL_RANK], "GPU")


def all_reduce_mean(x, name):
    if hvd is None:
        return x
    return hvd.allreduce(tf.convert_to_tensor(x), op=hvd.Average, name=name)


def make_generator(z_dim):
    return keras.Sequential([
        keras.Input((z_dim,)),
        layers.Dense(7 * 7 * 128, use_bias=False), layers.BatchNormalization(), layers.LeakyReLU(),
        layers.Reshape((7, 7, 128)),
        layers.Conv2DTranspose(64, 5, strides=2, padding="same", use_bias=False), layers.BatchNormalization(),
        layers.LeakyReLU(),
        layers.Conv2DTranspose(1, 5, strides=2, padding="same", activation="tanh"),
    ], name="generator")


def make_discriminator():
    return keras.Sequential([
        keras.Input((28, 28, 1)),
        layers.Conv2D(64, 5, strides=2, padding="same"), layers.LeakyReLU(), layers.Dropout(0.3),
        layers.Conv2D(128, 5, strides=2, padding="same"), layers.LeakyReLU(), layers.Dropout(0.3),
        layers.Flatten(), layers.Dense(1),
    ], name="discriminator")


def load_images(path):
    if path and os.path.exists(path):
        x = np.load(path)["x"]
    else:
        x = np.random.default_rng(3).integers(0, 256, (6000, 28, 28), dtype=np.uint8)
    return (x.astype("float32")[..., None] - 127.5) / 127.5


parser = argparse.ArgumentParser()
parser.add_argument("--data", default="data/mnist_train.npz")
parser.add_argument("--batch-size", type=int, default=128)
parser.add_argument("--epochs", type=int, default=50)
parser.add_argument("--lr", type=float, default=2e-4)
parser.add_argument("--z-dim", type=int, default=100)
parser.add_argument("--ckpt-dir", default="./training_checkpoints")
args = parser.parse_args()

images = load_images(args.data)
steps_per_epoch = len(images) // (args.batch_size * SIZE)
dataset = (tf.data.Dataset.from_tensor_slices(images)
           .shard(SIZE, RANK)
           .shuffle(10000, reshuffle_each_iteration=True)
           .batch(args.batch_size, drop_remainder=True)
           .take(steps_per_epoch))

generator, discriminator = make_generator(args.z_dim), make_discriminator()
g_opt = keras.optimizers.Adam(args.lr * SIZE, beta_1=0.5)
d_opt = keras.optimizers.Adam(args.lr * SIZE, beta_1=0.5)
bce = keras.losses.BinaryCrossentropy(from_logits=True)

checkpoint = tf.train.Checkpoint(g_opt=g_opt, d_opt=d_opt, generator=generator, discriminator=discriminator)
manager = tf.train.CheckpointManager(checkpoint, args.ckpt_dir, max_to_keep=3)


@tf.function
def train_step(real, first_batch):
    noise = tf.random.normal([tf.shape(real)[0], args.z_dim])
    with tf.GradientTape() as g_tape, tf.GradientTape() as d_tape:
        fake = generator(noise, training=True)
        real_out = discriminator(real, training=True)
        fake_out = discriminator(fake, training=True)
        g_loss = bce(tf.ones_like(fake_out), fake_out)
        d_loss = bce(tf.ones_like(real_out), real_out) + bce(tf.zeros_like(fake_out), fake_out)
    if hvd is not None:
        g_tape = hvd.DistributedGradientTape(g_tape)
        d_tape = hvd.DistributedGradientTape(d_tape)
    g_opt.apply_gradients(zip(g_tape.gradient(g_loss, generator.trainable_variables), generator.trainable_variables))
    d_opt.apply_gradients(zip(d_tape.gradient(d_loss, discriminator.trainable_variables),
                              discriminator.trainable_variables))
    if hvd is not None and first_batch:
        hvd.broadcast_variables(generator.variables, root_rank=0)
        hvd.broadcast_variables(discriminator.variables, root_rank=0)
        hvd.broadcast_variables(g_opt.variables, root_rank=0)
        hvd.broadcast_variables(d_opt.variables, root_rank=0)
    return g_loss, d_loss


first = True
for epoch in range(args.epochs):
    start = time.time()
    g_sum = d_sum = 0.0
    for batch in dataset:
        g_loss, d_loss = train_step(batch, first)
        first = False
        g_sum += float(g_loss)
        d_sum += float(d_loss)
    g_mean = float(all_reduce_mean(g_sum / steps_per_epoch, name="g_loss"))
    d_mean = float(all_reduce_mean(d_sum / steps_per_epoch, name="d_loss"))
    if RANK == 0:
        print(f"epoch {epoch + 1}: g_loss={g_mean:.4f} d_loss={d_mean:.4f} ({time.time() - start:.1f}s)")
        if (epoch + 1) % 5 == 0:
            manager.save()
