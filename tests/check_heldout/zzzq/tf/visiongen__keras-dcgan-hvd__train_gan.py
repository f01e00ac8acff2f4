"""DCGAN training step of the visiongen pipeline.

The pipeline calls ``train(params)`` inside a horovod job (see pipelines/gan_pipeline.py);
``python train_gan.py --epochs 5`` runs it by hand.
"""
import os

import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from kgan import params as P
from kgan.dist import init_workers
from kgan.dataio import image_dataset
from kgan.gan_model import DCGAN, generator, discriminator
from kgan.callbacks import build_callbacks


def train(params: P.Params) -> dict:
    rank, world = init_workers()
    ds = image_dataset(params, rank, world)

    gan = DCGAN(discriminator(params.image_size), generator(params.latent_dim, params.image_size),
                params.latent_dim, params.label_smoothing)
    gan.compile(
        d_optimizer=keras.optimizers.Adam(params.disc_lr * world, beta_1=0.5),
        g_optimizer=keras.optimizers.Adam(params.gen_lr * world, beta_1=0.5),
    )

    callbacks = build_callbacks(params, is_chief=(rank == 0))
    # keras ModelCheckpoint refuses the subclassed GAN ("model has not yet been built"), save both nets with tf.train
    ckpt = tf.train.Checkpoint(generator=gan.generator, discriminator=gan.discriminator,
                               g_optimizer=gan.g_optimizer, d_optimizer=gan.d_optimizer)
    manager = tf.train.CheckpointManager(ckpt, os.path.join(params.output_dir, "ckpt"), max_to_keep=5)
    callbacks.append(keras.callbacks.LambdaCallback(on_epoch_end=lambda epoch, logs: manager.save()))

    hist = gan.fit(ds, epochs=params.epochs, callbacks=callbacks, verbose=2 if rank == 0 else 0)
    if rank == 0:
        gan.generator.save(os.path.join(params.output_dir, "generator.keras"))
    return {k: float(v[-1]) for k, v in hist.history.items()}


if __name__ == "__main__":
    print(train(P.parse()))
