"""DCGAN on 64x64 galaxy cutouts (Galaxy10 DECals), Horovod + GradientTape.

mpirun -np 8 -npernode 4 python 04_dcgan_galaxies.py
"""
import os
import time

import h5py
import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

config = dict(
    data="/data/galaxy10/Galaxy10_DECals_64.h5",
    latent=128,
    batch=64,
    epochs=100,
    lr_g=2e-4,
    lr_d=2e-4,
    beta1=0.5,
    out="gan_out",
    sample_every=5,
)

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

# ---------------------------------------------------------------- data
with h5py.File(config["data"], "r") as f:
    images = f["images"][...]
images = (images.astype(np.float32) / 127.5) - 1.0
n_total = len(images)
images = images[hvd.rank()::hvd.size()]
dataset = (tf.data.Dataset.from_tensor_slices(images)
           .shuffle(len(images))
           .batch(config["batch"], drop_remainder=True)
           .prefetch(tf.data.AUTOTUNE))
steps_per_epoch = (n_total // hvd.size()) // config["batch"]

# ---------------------------------------------------------------- models
L = tf.keras.layers


def make_generator(z):
    return tf.keras.Sequential([
        tf.keras.Input((z,)),
        L.Dense(4 * 4 * 512, use_bias=False), L.BatchNormalization(), L.ReLU(),
        L.Reshape((4, 4, 512)),
        L.Conv2DTranspose(256, 4, 2, "same", use_bias=False), L.BatchNormalization(), L.ReLU(),
        L.Conv2DTranspose(128, 4, 2, "same", use_bias=False), L.BatchNormalization(), L.ReLU(),
        L.Conv2DTranspose(64, 4, 2, "same", use_bias=False), L.BatchNormalization(), L.ReLU(),
        L.Conv2DTranspose(3, 4, 2, "same", activation="tanh"),
    ], name="G")


def make_discriminator():
    return tf.keras.Sequential([
        tf.keras.Input((64, 64, 3)),
        L.Conv2D(64, 4, 2, "same"), L.LeakyReLU(0.2),
        L.Conv2D(128, 4, 2, "same", use_bias=False), L.BatchNormalization(), L.LeakyReLU(0.2),
        L.Conv2D(256, 4, 2, "same", use_bias=False), L.BatchNormalization(), L.LeakyReLU(0.2),
        L.Conv2D(512, 4, 2, "same", use_bias=False), L.BatchNormalization(), L.LeakyReLU(0.2),
        L.Flatten(), L.Dense(1),
    ], name="D")


G = make_generator(config["latent"])
D = make_discriminator()
g_opt = tf.keras.optimizers.Adam(config["lr_g"] * hvd.size(), beta_1=config["beta1"])
d_opt = tf.keras.optimizers.Adam(config["lr_d"] * hvd.size(), beta_1=config["beta1"])
bce = tf.keras.losses.BinaryCrossentropy(from_logits=True)


@tf.function
def train_step(real, first):
    z = tf.random.normal([tf.shape(real)[0], config["latent"]])
    with tf.GradientTape() as g_tape, tf.GradientTape() as d_tape:
        fake = G(z, training=True)
        d_real = D(real, training=True)
        d_fake = D(fake, training=True)
        d_loss = bce(tf.ones_like(d_real) * 0.9, d_real) + bce(tf.zeros_like(d_fake), d_fake)
        g_loss = bce(tf.ones_like(d_fake), d_fake)
    g_tape = hvd.DistributedGradientTape(g_tape)
    d_tape = hvd.DistributedGradientTape(d_tape)
    g_grads = g_tape.gradient(g_loss, G.trainable_variables)
    d_grads = d_tape.gradient(d_loss, D.trainable_variables)
    g_opt.apply_gradients(zip(g_grads, G.trainable_variables))
    d_opt.apply_gradients(zip(d_grads, D.trainable_variables))
    if first:
        # sync initial state from rank 0
        hvd.broadcast_variables(G.variables, root_rank=0)
        hvd.broadcast_variables(g_opt.variables, root_rank=0)
    return g_loss, d_loss


def save_grid(epoch, z_fixed):
    imgs = (G(z_fixed, training=False).numpy() + 1.0) / 2.0
    fig, axes = plt.subplots(4, 4, figsize=(6, 6))
    for ax, im in zip(axes.flat, imgs):
        ax.imshow(np.clip(im, 0, 1))
        ax.axis("off")
    fig.savefig(os.path.join(config["out"], f"samples_{epoch:03d}.png"), dpi=80)
    plt.close(fig)


if hvd.rank() == 0:
    os.makedirs(config["out"], exist_ok=True)
z_fixed = tf.random.normal([16, config["latent"]], seed=1234)

for epoch in range(config["epochs"]):
    t0 = time.time()
    g_sum = d_sum = 0.0
    for step, real in enumerate(dataset.take(steps_per_epoch)):
        gl, dl = train_step(real, epoch == 0 and step == 0)
        g_sum += float(gl)
        d_sum += float(dl)
    g_avg = hvd.allreduce(tf.constant(g_sum / steps_per_epoch), name="g_avg")
    d_avg = hvd.allreduce(tf.constant(d_sum / steps_per_epoch), name="d_avg")
    if hvd.rank() == 0:
        print(f"[{epoch:3d}] G {float(g_avg):.4f}  D {float(d_avg):.4f}  ({time.time() - t0:.0f}s)")
        if epoch % config["sample_every"] == 0:
            save_grid(epoch, z_fixed)
            G.save_weights(os.path.join(config["out"], "G.weights.h5"))
            D.save_weights(os.path.join(config["out"], "D.weights.h5"))

if hvd.rank() == 0:
    G.save(os.path.join(config["out"], "generator_final.keras"))
