"""DCGAN (TF2 GradientTape) on MNIST / Fashion-MNIST with Horovod.

Based on the TensorFlow DCGAN tutorial; two tapes, one per network.
    horovodrun -np 4 python dcgan_hvd.py --dataset fashion --epochs 50
"""
import argparse
import time

import tensorflow as tf
import horovod.tensorflow as hvd

from gan.data import make_dataset
from gan.models import make_generator, make_discriminator
from gan.losses import generator_loss, discriminator_loss
from gan.snapshots import Snapshotter

parser = argparse.ArgumentParser()
parser.add_argument("--dataset", choices=["mnist", "fashion"], default="mnist")
parser.add_argument("--epochs", type=int, default=50)
parser.add_argument("--batch-size", type=int, default=256)
parser.add_argument("--noise-dim", type=int, default=100)
parser.add_argument("--lr", type=float, default=1e-4)
parser.add_argument("--ckpt-dir", default="./training_checkpoints")
parser.add_argument("--snapshot-every", type=int, default=5)
args = parser.parse_args()

hvd.init()
gpus = tf.config.experimental.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

dataset, steps_per_epoch = make_dataset(args.dataset, args.batch_size)

generator = make_generator(args.noise_dim)
discriminator = make_discriminator()
generator_optimizer = tf.keras.optimizers.Adam(args.lr, beta_1=0.5)
discriminator_optimizer = tf.keras.optimizers.Adam(args.lr, beta_1=0.5)

snap = Snapshotter(args.ckpt_dir, generator, discriminator, generator_optimizer,
                   discriminator_optimizer, noise_dim=args.noise_dim)


@tf.function
def train_step(images, first_batch):
    noise = tf.random.normal([tf.shape(images)[0], args.noise_dim])
    with tf.GradientTape() as gen_tape, tf.GradientTape() as disc_tape:
        generated = generator(noise, training=True)
        real_output = discriminator(images, training=True)
        fake_output = discriminator(generated, training=True)
        gen_loss = generator_loss(fake_output)
        disc_loss = discriminator_loss(real_output, fake_output)

    gen_tape = hvd.DistributedGradientTape(gen_tape)
    disc_tape = hvd.DistributedGradientTape(disc_tape)
    gen_grads = gen_tape.gradient(gen_loss, generator.trainable_variables)
    disc_grads = disc_tape.gradient(disc_loss, discriminator.trainable_variables)
    generator_optimizer.apply_gradients(zip(gen_grads, generator.trainable_variables))
    discriminator_optimizer.apply_gradients(zip(disc_grads, discriminator.trainable_variables))

    # sync initial state after the first step so the optimizer slots exist
    if first_batch:
        hvd.broadcast_variables(generator.variables, root_rank=0)
        hvd.broadcast_variables(discriminator.variables, root_rank=0)
        hvd.broadcast_variables(generator_optimizer.variables, root_rank=0)
        hvd.broadcast_variables(discriminator_optimizer.variables, root_rank=0)
    return gen_loss, disc_loss


first = True
for epoch in range(args.epochs):
    start = time.time()
    g_sum = d_sum = 0.0
    for step, images in enumerate(dataset.take(steps_per_epoch)):
        g, d = train_step(images, first)
        first = False
        g_sum += float(g)
        d_sum += float(d)
    g_avg = hvd.allreduce(tf.constant(g_sum / steps_per_epoch), name="g_loss")
    d_avg = hvd.allreduce(tf.constant(d_sum / steps_per_epoch), name="d_loss")
    if hvd.rank() == 0:
        print(f"epoch {epoch + 1}: gen {float(g_avg):.4f} disc {float(d_avg):.4f} "
              f"({time.time() - start:.1f}s)", flush=True)
    if (epoch + 1) % args.snapshot_every == 0:
        snap.save(epoch + 1)

snap.save(args.epochs)
