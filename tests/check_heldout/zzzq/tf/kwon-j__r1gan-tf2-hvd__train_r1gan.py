"""Non-saturating GAN with R1 penalty + generator EMA, TF2 / horovod.
Data: a folder of .npy shards (N, 64, 64, 3 uint8) written by prep_data.py.

horovodrun -np 8 -H a:4,b:4 python train_r1gan.py --data-dir /scratch/faces_npy
"""
import argparse
import glob
import os
import time

import numpy as np
import tensorflow as tf
import keras
from keras import layers
import horovod.tensorflow as hvd

ap = argparse.ArgumentParser()
ap.add_argument("--data-dir", default="/scratch/faces_npy")
ap.add_argument("--res", type=int, default=64)
ap.add_argument("--bs", type=int, default=32)
ap.add_argument("--epochs", type=int, default=100)
ap.add_argument("--z", type=int, default=256)
ap.add_argument("--glr", type=float, default=1e-4)
ap.add_argument("--dlr", type=float, default=3e-4)
ap.add_argument("--r1", type=float, default=5.0)
ap.add_argument("--ema", type=float, default=0.999)
ap.add_argument("--out", default="out_r1gan")
args = ap.parse_args()

hvd.init()
gpus = tf.config.experimental.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
print("worker %d/%d, %d visible GPUs" % (hvd.rank(), hvd.size(), len(gpus)))

files = sorted(glob.glob(os.path.join(args.data_dir, "*.npy")))
if files:
    images = np.concatenate([np.load(f) for f in files])
else:
    images = np.random.RandomState(0).randint(0, 256, (512, args.res, args.res, 3)).astype(np.uint8)
n_images = len(images)
ds = (tf.data.Dataset.from_tensor_slices(images)
      .shuffle(n_images, reshuffle_each_iteration=True)
      .map(lambda x: tf.cast(x, tf.float32) / 127.5 - 1.0, num_parallel_calls=tf.data.AUTOTUNE)
      .batch(args.bs, drop_remainder=True)
      .prefetch(tf.data.AUTOTUNE))


def make_G():
    return keras.Sequential([
        keras.Input((args.z,)),
        layers.Dense(4 * 4 * 512), layers.Reshape((4, 4, 512)), layers.LeakyReLU(0.2),
        layers.UpSampling2D(), layers.Conv2D(256, 3, padding="same"), layers.LeakyReLU(0.2),
        layers.UpSampling2D(), layers.Conv2D(128, 3, padding="same"), layers.LeakyReLU(0.2),
        layers.UpSampling2D(), layers.Conv2D(64, 3, padding="same"), layers.LeakyReLU(0.2),
        layers.UpSampling2D(), layers.Conv2D(32, 3, padding="same"), layers.LeakyReLU(0.2),
        layers.Conv2D(3, 1, activation="tanh")])


G = make_G()
G_ema = make_G()
G_ema.set_weights(G.get_weights())
D = keras.Sequential([
    keras.Input((args.res, args.res, 3)),
    layers.Conv2D(32, 3, padding="same"), layers.LeakyReLU(0.2), layers.AveragePooling2D(2),
    layers.Conv2D(64, 3, padding="same"), layers.LeakyReLU(0.2), layers.AveragePooling2D(2),
    layers.Conv2D(128, 3, padding="same"), layers.LeakyReLU(0.2), layers.AveragePooling2D(2),
    layers.Conv2D(256, 3, padding="same"), layers.LeakyReLU(0.2), layers.AveragePooling2D(2),
    layers.Flatten(), layers.Dense(1)])

opt_G = keras.optimizers.Adam(args.glr * hvd.size(), beta_1=0.0, beta_2=0.99)
opt_D = keras.optimizers.Adam(args.dlr * hvd.size(), beta_1=0.0, beta_2=0.99)


@tf.function
def step(real, first):
    z = tf.random.normal([tf.shape(real)[0], args.z])
    with tf.GradientTape() as d_tape:
        with tf.GradientTape() as r1_tape:
            r1_tape.watch(real)
            real_logits = D(real, training=True)
        r1_grads = r1_tape.gradient(real_logits, real)
        r1 = tf.reduce_mean(tf.reduce_sum(tf.square(r1_grads), axis=[1, 2, 3]))
        fake_logits = D(G(z, training=True), training=True)
        d_loss = tf.reduce_mean(tf.nn.softplus(fake_logits)) + tf.reduce_mean(tf.nn.softplus(-real_logits)) \
            + 0.5 * args.r1 * r1
    d_tape = hvd.DistributedGradientTape(d_tape)
    opt_D.apply_gradients(zip(d_tape.gradient(d_loss, D.trainable_variables), D.trainable_variables))

    z = tf.random.normal([tf.shape(real)[0], args.z])
    with tf.GradientTape() as g_tape:
        g_loss = tf.reduce_mean(tf.nn.softplus(-D(G(z, training=True), training=True)))
    g_tape = hvd.DistributedGradientTape(g_tape)
    opt_G.apply_gradients(zip(g_tape.gradient(g_loss, G.trainable_variables), G.trainable_variables))

    if first:
        hvd.broadcast_variables(G.variables, root_rank=0)
        hvd.broadcast_variables(D.variables, root_rank=0)
        hvd.broadcast_variables(opt_G.variables, root_rank=0)
        hvd.broadcast_variables(opt_D.variables, root_rank=0)
        for a, b in zip(G_ema.variables, G.variables):
            a.assign(b)
    else:
        for a, b in zip(G_ema.variables, G.variables):
            a.assign(args.ema * a + (1.0 - args.ema) * b)
    return tf.stack([d_loss, g_loss, r1])


ckpt = tf.train.Checkpoint(G=G, G_ema=G_ema, D=D, opt_G=opt_G, opt_D=opt_D)
mgr = tf.train.CheckpointManager(ckpt, os.path.join(args.out, "ckpt"), max_to_keep=2)
z_fixed = tf.random.stateless_normal([36, args.z], seed=[4, 2])
if hvd.rank() == 0:
    os.makedirs(args.out, exist_ok=True)

for epoch in range(args.epochs):
    t0 = time.time()
    acc = tf.zeros([3])
    nb = 0
    for i, real in enumerate(ds):
        acc += step(real, epoch == 0 and i == 0)
        nb += 1
    acc = hvd.allreduce(acc / nb, op=hvd.Average, name="epoch_losses").numpy()
    if hvd.rank() == 0:
        print("ep %3d  D %.3f  G %.3f  R1 %.3f  %.0fs" % (epoch, acc[0], acc[1], acc[2], time.time() - t0))
        x = ((G_ema(z_fixed, training=False).numpy() + 1) * 127.5).clip(0, 255).astype(np.uint8)
        x = x.reshape(6, 6, args.res, args.res, 3).transpose(0, 2, 1, 3, 4).reshape(6 * args.res, 6 * args.res, 3)
        keras.utils.save_img(os.path.join(args.out, "ema_%03d.png" % epoch), x, scale=False)
        mgr.save()
