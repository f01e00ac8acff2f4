import os

import keras
import horovod.tensorflow.keras as hvdk

from cgk.flags import get_flags
from cgk.hvd_env import setup
from cgk import datasets
from cgk.model import ConditionalGAN
from cgk.callbacks import SampleGrid, ISLikeScore


def main():
    flags = get_flags()
    rank, size, _ = setup()

    x, y = datasets.load(flags.dataset)
    stream = datasets.train_stream(x, y, flags.batch_size, rank)
    steps_per_epoch = len(x) // (flags.batch_size * size)

    k = size if flags.lr_scaling else 1
    gan = ConditionalGAN(flags.latent_dim)
    gan.compile(
        d_optimizer=keras.optimizers.Adam(flags.d_lr * k, beta_1=0.5),
        g_optimizer=keras.optimizers.Adam(flags.g_lr * k, beta_1=0.5),
        loss_fn=keras.losses.BinaryCrossentropy(from_logits=True),
    )

    callbacks = [
        hvdk.callbacks.BroadcastGlobalVariablesCallback(0),
        ISLikeScore(flags.score_samples, flags.latent_dim),
        hvdk.callbacks.MetricAverageCallback(),
    ]
    if rank == 0:
        os.makedirs(flags.workdir, exist_ok=True)
        callbacks += [
            SampleGrid(flags.workdir, flags.latent_dim),
            # ModelCheckpoint can't save the subclassed GAN (never "built"), save the two functional nets
            keras.callbacks.LambdaCallback(on_epoch_end=lambda epoch, logs: (
                gan.generator.save_weights(os.path.join(flags.workdir, "G_%03d.weights.h5" % epoch)),
                gan.discriminator.save_weights(os.path.join(flags.workdir, "D_%03d.weights.h5" % epoch)))),
            keras.callbacks.CSVLogger(os.path.join(flags.workdir, "log.csv")),
        ]

    gan.fit(stream, epochs=flags.epochs, steps_per_epoch=steps_per_epoch, callbacks=callbacks,
            verbose=1 if rank == 0 else 0)
    if rank == 0:
        gan.generator.save(os.path.join(flags.workdir, "generator.keras"))


if __name__ == "__main__":
    main()
