"""DCGAN on MNIST digits, TF2 custom loop, data-parallel with horovod.tensorflow.

Reading group project (GAN week). Per-worker batch of 256.
"""
import os
import time

import horovod.tensorflow as hvd
import keras
import numpy as np
import tensorflow as tf

hvd.init()
gpus = tf.config.experimental.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

BATCH = 256
NOISE = 100
EPOCHS = int(os.environ.get("EPOCHS", 50))
CKPT_DIR = "./training_checkpoints"

(train_images, _), _ = keras.datasets.mnist.load_data()
train_images = (train_images.reshape(-1, 28, 28, 1).astype("float32") - 127.5) / 127.5
steps_per_epoch = len(train_images) // (BATCH * hvd.size())
dataset = (tf.data.Dataset.from_tensor_slices(train_images)
           .shard(hvd.size(), hvd.rank())
           .shuffle(60000 // hvd.size(), seed=hvd.rank())
           .batch(BATCH, drop_remainder=True)
           .repeat())


def make_generator():
    return keras.Sequential([
        keras.Input((NOISE,)),
        keras.layers.Dense(7 * 7 * 128, use_bias=False), keras.layers.BatchNormalization(), keras.layers.LeakyReLU(),
        keras.layers.Reshape((7, 7, 128)),
        keras.layers.Conv2DTranspose(64, 5, strides=2, padding="same", use_bias=False),
        keras.layers.BatchNormalization(), keras.layers.LeakyReLU(),
        keras.layers.Conv2DTranspose(1, 5, strides=2, padding="same", activation="tanh"),
    ])


def make_discriminator():
    return keras.Sequential([
        keras.Input((28, 28, 1)),
        keras.layers.Conv2D(64, 5, strides=2, padding="same"), keras.layers.LeakyReLU(), keras.layers.Dropout(0.3),
        keras.layers.Conv2D(128, 5, strides=2, padding="same"), keras.layers.LeakyReLU(), keras.layers.Dropout(0.3),
        keras.layers.Flatten(), keras.layers.Dense(1),
    ])


generator = make_generator()
discriminator = make_discriminator()
bce = keras.losses.BinaryCrossentropy(from_logits=True)
gen_opt = keras.optimizers.Adam(1e-4)
disc_opt = keras.optimizers.Adam(1e-4)
checkpoint = tf.train.Checkpoint(generator=generator, discriminator=discriminator,
                                 gen_opt=gen_opt, disc_opt=disc_opt)


@tf.function
def train_step(images, first_batch):
    noise = tf.random.normal([BATCH, NOISE])
    with tf.GradientTape() as gen_tape, tf.GradientTape() as disc_tape:
        fake = generator(noise, training=True)
        real_out = discriminator(images, training=True)
        fake_out = discriminator(fake, training=True)
        gen_loss = bce(tf.ones_like(fake_out), fake_out)
        disc_loss = bce(tf.ones_like(real_out), real_out) + bce(tf.zeros_like(fake_out), fake_out)

    disc_tape = hvd.DistributedGradientTape(disc_tape)
    g_grads = gen_tape.gradient(gen_loss, generator.trainable_variables)
    d_grads = disc_tape.gradient(disc_loss, discriminator.trainable_variables)
    gen_opt.apply_gradients(zip(g_grads, generator.trainable_variables))
    disc_opt.apply_gradients(zip(d_grads, discriminator.trainable_variables))

    if first_batch:
        hvd.broadcast_variables(generator.variables, root_rank=0)
        hvd.broadcast_variables(discriminator.variables, root_rank=0)
        hvd.broadcast_variables(gen_opt.variables, root_rank=0)
        hvd.broadcast_variables(disc_opt.variables, root_rank=0)
    return gen_loss, disc_loss


it = iter(dataset)
for epoch in range(EPOCHS):
    start = time.time()
    g_sum = d_sum = 0.0
    for step in range(steps_per_epoch):
        g, d = train_step(next(it), epoch == 0 and step == 0)
        g_sum += float(g)
        d_sum += float(d)
    g_avg = hvd.allreduce(tf.constant(g_sum / steps_per_epoch), name="g_loss")
    d_avg = hvd.allreduce(tf.constant(d_sum / steps_per_epoch), name="d_loss")
    if hvd.rank() == 0:
        print(f"epoch {epoch + 1}: gen {float(g_avg):.4f} disc {float(d_avg):.4f} ({time.time() - start:.1f}s)")
        if (epoch + 1) % 10 == 0:
            checkpoint.save(os.path.join(CKPT_DIR, "ckpt"))
            np.save(f"samples_{epoch + 1:03d}.npy", generator(tf.random.normal([16, NOISE]), training=False).numpy())
