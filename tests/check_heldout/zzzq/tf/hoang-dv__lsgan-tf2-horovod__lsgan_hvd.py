# LSGAN on MNIST / fashion-MNIST with tf2 + horovod
# mpirun -np 4 python lsgan_hvd.py --dataset fashion
import argparse
import os
import time

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd
from tensorflow import keras
from tensorflow.keras import layers

parser = argparse.ArgumentParser()
parser.add_argument("--dataset", default="mnist", choices=["mnist", "fashion", "random"])
parser.add_argument("--epochs", type=int, default=50)
parser.add_argument("--batch_size", type=int, default=128)
parser.add_argument("--z_dim", type=int, default=64)
parser.add_argument("--lr_g", type=float, default=2e-4)
parser.add_argument("--lr_d", type=float, default=2e-4)
parser.add_argument("--critic_iters", type=int, default=1, help="D steps per G step")
parser.add_argument("--save_dir", default="./lsgan_out")
parser.add_argument("--ckpt_every", type=int, default=5)
args = parser.parse_args()

hvd.init()
gpus = tf.config.experimental.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

# ---------------- data
if args.dataset == "random":
    x_train = np.random.randint(0, 255, (2048, 28, 28)).astype("uint8")
elif args.dataset == "fashion":
    (x_train, _), _ = keras.datasets.fashion_mnist.load_data(path="fashion-mnist-%d.npz" % hvd.rank())
else:
    (x_train, _), _ = keras.datasets.mnist.load_data(path="mnist-%d.npz" % hvd.rank())
x_train = (x_train.astype("float32")[..., None] - 127.5) / 127.5
dataset = tf.data.Dataset.from_tensor_slices(x_train)
dataset = dataset.shard(hvd.size(), hvd.rank()).shuffle(10000).batch(args.batch_size, drop_remainder=True)

# ---------------- models
generator = keras.Sequential([
    keras.Input(shape=(args.z_dim,)),
    layers.Dense(7 * 7 * 128), layers.BatchNormalization(), layers.ReLU(), layers.Reshape((7, 7, 128)),
    layers.Conv2DTranspose(64, 4, strides=2, padding="same"), layers.BatchNormalization(), layers.ReLU(),
    layers.Conv2DTranspose(1, 4, strides=2, padding="same", activation="tanh"),
])
discriminator = keras.Sequential([
    keras.Input(shape=(28, 28, 1)),
    layers.Conv2D(64, 4, strides=2, padding="same"), layers.LeakyReLU(0.2),
    layers.Conv2D(128, 4, strides=2, padding="same"), layers.BatchNormalization(), layers.LeakyReLU(0.2),
    layers.Flatten(), layers.Dense(1),
])

g_opt = keras.optimizers.Adam(args.lr_g * hvd.size(), beta_1=0.5)
d_opt = keras.optimizers.Adam(args.lr_d * hvd.size(), beta_1=0.5)
mse = keras.losses.MeanSquaredError()

ckpt = tf.train.Checkpoint(generator=generator, discriminator=discriminator, g_opt=g_opt, d_opt=d_opt)
manager = tf.train.CheckpointManager(ckpt, os.path.join(args.save_dir, "ckpt"), max_to_keep=5)

d_loss_avg = keras.metrics.Mean()
g_loss_avg = keras.metrics.Mean()
d_real_acc = keras.metrics.Mean()


@tf.function
def train_d(real, first_batch):
    z = tf.random.normal([tf.shape(real)[0], args.z_dim])
    with tf.GradientTape() as tape:
        fake = generator(z, training=True)
        r = discriminator(real, training=True)
        f = discriminator(fake, training=True)
        loss = 0.5 * (mse(tf.ones_like(r), r) + mse(tf.zeros_like(f), f))
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, discriminator.trainable_variables)
    d_opt.apply_gradients(zip(grads, discriminator.trainable_variables))
    if first_batch:
        hvd.broadcast_variables(discriminator.variables, root_rank=0)
        hvd.broadcast_variables(d_opt.variables, root_rank=0)
    d_loss_avg.update_state(loss)
    d_real_acc.update_state(tf.reduce_mean(tf.cast(r > 0.5, tf.float32)))
    return loss


@tf.function
def train_g(batch_size, first_batch):
    z = tf.random.normal([batch_size, args.z_dim])
    with tf.GradientTape() as tape:
        f = discriminator(generator(z, training=True), training=True)
        loss = 0.5 * mse(tf.ones_like(f), f)
    grads = tape.gradient(loss, generator.trainable_variables)
    g_opt.apply_gradients(zip(grads, generator.trainable_variables))
    if first_batch:
        hvd.broadcast_variables(generator.variables, root_rank=0)
        hvd.broadcast_variables(g_opt.variables, root_rank=0)
    g_loss_avg.update_state(loss)
    return loss


def save_grid(epoch, n=8):
    z = tf.random.normal([n * n, args.z_dim], seed=1234)
    imgs = generator(z, training=False).numpy()[..., 0]
    imgs = ((imgs + 1) * 127.5).astype(np.uint8)
    grid = imgs.reshape(n, n, 28, 28).transpose(0, 2, 1, 3).reshape(n * 28, n * 28)
    keras.utils.save_img(os.path.join(args.save_dir, "epoch_%03d.png" % epoch), grid[..., None])


if hvd.rank() == 0:
    os.makedirs(args.save_dir, exist_ok=True)

for epoch in range(args.epochs):
    start = time.time()
    for step, real in enumerate(dataset):
        first = epoch == 0 and step == 0
        train_d(real, first)
        if step % args.n_critic == 0:
            train_g(args.batch_size, first)

    if hvd.rank() == 0:
        print("Epoch {} | D loss {:.4f} | G loss {:.4f} | D(x)>0.5 {:.3f} | {:.1f}s".format(
            epoch + 1, d_loss_avg.result(), g_loss_avg.result(), d_real_acc.result(), time.time() - start))
        save_grid(epoch)
        if (epoch + 1) % args.ckpt_every == 0:
            manager.save()
    d_loss_avg.reset_state()
    g_loss_avg.reset_state()
    d_real_acc.reset_state()
