"""DCGAN on CelebA 64x64, multi-GPU with Horovod and tf.GradientTape.

    horovodrun -np 4 python train_gan.py --data /scratch/celeba/img_align_celeba --epochs 30
"""
import argparse
import os
import time

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

from gan.data import celeba_dataset
from gan.losses import discriminator_loss, generator_loss
from gan.networks import make_discriminator, make_generator

parser = argparse.ArgumentParser()
parser.add_argument("--data", required=True)
parser.add_argument("--out", default="runs/dcgan")
parser.add_argument("--epochs", type=int, default=30)
parser.add_argument("--batch-size", type=int, default=128)
parser.add_argument("--latent-dim", type=int, default=128)
parser.add_argument("--lr", type=float, default=2e-4)
parser.add_argument("--save-every", type=int, default=5)
args = parser.parse_args()

hvd.init()
gpus = tf.config.experimental.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

dataset, n_images = celeba_dataset(args.data, args.batch_size)
generator = make_generator(args.latent_dim)
discriminator = make_discriminator()
# linear scaling of both learning rates with the number of workers
g_opt = tf.keras.optimizers.Adam(args.lr * hvd.size(), beta_1=0.5)
d_opt = tf.keras.optimizers.Adam(args.lr * hvd.size(), beta_1=0.5)

checkpoint = tf.train.Checkpoint(generator=generator, discriminator=discriminator,
                                 g_opt=g_opt, d_opt=d_opt)


@tf.function
def train_step(images, first_batch):
    noise = tf.random.normal([tf.shape(images)[0], args.latent_dim])
    with tf.GradientTape() as g_tape, tf.GradientTape() as d_tape:
        fake = generator(noise, training=True)
        real_logits = discriminator(images, training=True)
        fake_logits = discriminator(fake, training=True)
        g_loss = generator_loss(fake_logits)
        d_loss = discriminator_loss(real_logits, fake_logits)

    g_tape = hvd.DistributedGradientTape(g_tape)
    g_grads = g_tape.gradient(g_loss, generator.trainable_variables)
    d_grads = d_tape.gradient(d_loss, discriminator.trainable_variables)
    g_opt.apply_gradients(zip(g_grads, generator.trainable_variables))
    d_opt.apply_gradients(zip(d_grads, discriminator.trainable_variables))

    if first_batch:
        hvd.broadcast_variables(generator.variables, root_rank=0)
        hvd.broadcast_variables(discriminator.variables, root_rank=0)
        hvd.broadcast_variables(g_opt.variables, root_rank=0)
        hvd.broadcast_variables(d_opt.variables, root_rank=0)
    return g_loss, d_loss


fixed_noise = tf.random.normal([64, args.latent_dim], seed=7)
step = 0
for epoch in range(args.epochs):
    start = time.time()
    g_total, d_total, n = 0.0, 0.0, 0
    for images in dataset:
        g_loss, d_loss = train_step(images, step == 0)
        g_total += float(g_loss)
        d_total += float(d_loss)
        n += 1
        step += 1

    losses = hvd.allreduce(tf.constant([g_total / n, d_total / n]), name="epoch_losses")
    if hvd.rank() == 0:
        print(f"epoch {epoch + 1}/{args.epochs}  G {losses[0]:.4f}  D {losses[1]:.4f}  "
              f"{time.time() - start:.0f}s", flush=True)

    if hvd.rank == 0 and (epoch + 1) % args.save_every == 0:
        os.makedirs(args.out, exist_ok=True)
        checkpoint.save(os.path.join(args.out, "ckpt"))
        samples = generator(fixed_noise, training=False).numpy()
        np.save(os.path.join(args.out, f"samples_{epoch + 1:03d}.npy"), samples)
