# WGAN-GP (Gulrajani et al. 2017) on 64x64 images, TF2 + Horovod.
# Ported from our TF1 code base; n_critic critic steps per generator step.
#
#   mpirun -np 4 python train_wgan.py --data /data/lsun_church_64.npy --epochs 30
import argparse
import os
import time

import numpy as np
import tensorflow as tf
from tensorflow import keras
import horovod.tensorflow as hvd

parser = argparse.ArgumentParser()
parser.add_argument("--data", required=True)
parser.add_argument("--epochs", type=int, default=30)
parser.add_argument("--batch_size", type=int, default=64)
parser.add_argument("--z_dim", type=int, default=128)
parser.add_argument("--n_critic", type=int, default=5)
parser.add_argument("--gp_weight", type=float, default=10.0)
parser.add_argument("--lr", type=float, default=1e-4)
parser.add_argument("--ckpt_dir", default="./wgan_ckpt")
FLAGS = parser.parse_args()

hvd.init()

# ---------------------------------------------------------------- data
images = np.load(FLAGS.data).astype(np.float32) / 127.5 - 1.0
n_batches = len(images) // (FLAGS.batch_size * hvd.size())
dataset = (tf.data.Dataset.from_tensor_slices(images)
           .shard(hvd.size(), hvd.rank())
           .shuffle(20000)
           .batch(FLAGS.batch_size, drop_remainder=True)
           .take(n_batches)
           .prefetch(tf.data.AUTOTUNE))


# ---------------------------------------------------------------- models
def make_generator(z_dim):
    return keras.Sequential([
        keras.Input((z_dim,)),
        keras.layers.Dense(4 * 4 * 512), keras.layers.Reshape((4, 4, 512)),
        keras.layers.Conv2DTranspose(256, 4, 2, "same"), keras.layers.BatchNormalization(), keras.layers.ReLU(),
        keras.layers.Conv2DTranspose(128, 4, 2, "same"), keras.layers.BatchNormalization(), keras.layers.ReLU(),
        keras.layers.Conv2DTranspose(64, 4, 2, "same"), keras.layers.BatchNormalization(), keras.layers.ReLU(),
        keras.layers.Conv2DTranspose(3, 4, 2, "same", activation="tanh"),
    ], name="generator")


def make_critic():
    return keras.Sequential([
        keras.Input((64, 64, 3)),
        keras.layers.Conv2D(64, 4, 2, "same"), keras.layers.LeakyReLU(0.2),
        keras.layers.Conv2D(128, 4, 2, "same"), keras.layers.LeakyReLU(0.2),
        keras.layers.Conv2D(256, 4, 2, "same"), keras.layers.LeakyReLU(0.2),
        keras.layers.Conv2D(512, 4, 2, "same"), keras.layers.LeakyReLU(0.2),
        keras.layers.Flatten(), keras.layers.Dense(1),
    ], name="critic")


generator = make_generator(FLAGS.z_dim)
critic = make_critic()

# Adam(0.0, 0.9) from the paper; lr scaled with the number of workers
g_opt = keras.optimizers.Adam(FLAGS.lr * hvd.size(), beta_1=0.0, beta_2=0.9)
d_opt = keras.optimizers.Adam(FLAGS.lr * hvd.size(), beta_1=0.0, beta_2=0.9)

checkpoint = tf.train.Checkpoint(generator=generator, critic=critic, g_opt=g_opt, d_opt=d_opt)
manager = tf.train.CheckpointManager(checkpoint, FLAGS.ckpt_dir, max_to_keep=5)


def gradient_penalty(real, fake):
    eps = tf.random.uniform([tf.shape(real)[0], 1, 1, 1], 0.0, 1.0)
    x_hat = eps * real + (1.0 - eps) * fake
    with tf.GradientTape() as t:
        t.watch(x_hat)
        d_hat = critic(x_hat, training=True)
    g = t.gradient(d_hat, x_hat)
    norm = tf.sqrt(tf.reduce_sum(tf.square(g), axis=[1, 2, 3]) + 1e-12)
    return tf.reduce_mean(tf.square(norm - 1.0))


@tf.function
def critic_step(real):
    z = tf.random.normal([tf.shape(real)[0], FLAGS.z_dim])
    with tf.GradientTape() as tape:
        fake = generator(z, training=True)
        d_loss = (tf.reduce_mean(critic(fake, training=True)) - tf.reduce_mean(critic(real, training=True))
                  + FLAGS.gp_weight * gradient_penalty(real, fake))
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(d_loss, critic.trainable_variables)
    d_opt.apply_gradients(zip(grads, critic.trainable_variables))
    return d_loss


@tf.function
def generator_step(batch):
    z = tf.random.normal([batch, FLAGS.z_dim])
    with tf.GradientTape() as tape:
        g_loss = -tf.reduce_mean(critic(generator(z, training=True), training=True))
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(g_loss, generator.trainable_variables)
    g_opt.apply_gradients(zip(grads, generator.trainable_variables))
    return g_loss


step = 0
for epoch in range(FLAGS.epochs):
    t0 = time.time()
    d_hist, g_hist = [], []
    for real in dataset:
        d_hist.append(critic_step(real))
        if step % FLAGS.n_critic == 0:
            g_hist.append(generator_step(FLAGS.batch_size))
        if step == 0:
            # all workers start from rank 0's networks and optimizer slots
            hvd.broadcast_variables(generator.variables + critic.variables, root_rank=0)
            hvd.broadcast_variables(g_opt.variables + d_opt.variables, root_rank=0)
        step += 1
    d_mean = hvd.allreduce(tf.reduce_mean(d_hist), name="d_loss")
    g_mean = hvd.allreduce(tf.reduce_mean(g_hist), name="g_loss")
    save_path = manager.save()
    if hvd.rank() == 0:
        print(f"epoch {epoch}: critic {float(d_mean):.3f} gen {float(g_mean):.3f} "
              f"({time.time() - t0:.0f}s) -> {save_path}")
