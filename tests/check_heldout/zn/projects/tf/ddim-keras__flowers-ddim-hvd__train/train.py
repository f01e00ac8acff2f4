"""Denoising diffusion implicit model (DDIM) on Oxford Flowers 64x64, Keras 3 + Horovod.

Adapted from the keras.io DDIM example; the model/schedule code lives in ddim/.
    horovodrun -np 4 python train.py --data data/flowers64.npz --epochs 80
"""
import argparse
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from ddim.config import TrainConfig
from ddim.data import make_datasets
from ddim.network import build_unet
from ddim.model import DiffusionModel


class SampleWriter(keras.callbacks.Callback):
    """Writes a grid of generated images every `every` epochs (rank 0 only)."""

    def __init__(self, out_dir, every=5, steps=20):
        super().__init__()
        self.out_dir, self.every, self.steps = out_dir, every, steps

    def on_epoch_end(self, epoch, logs=None):
        if (epoch + 1) % self.every:
            return
        imgs = self.model.generate(num_images=16, diffusion_steps=self.steps)
        grid = np.concatenate([np.concatenate(list(row), axis=1) for row in imgs.numpy().reshape(4, 4, *imgs.shape[1:])], axis=0)
        keras.utils.save_img(os.path.join(self.out_dir, f"samples_{epoch + 1:03d}.png"), grid)


def parse_args():
    cfg = TrainConfig()
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=cfg.data)
    ap.add_argument("--epochs", type=int, default=cfg.epochs)
    ap.add_argument("--out", default=cfg.out_dir)
    ap.add_argument("--lr", type=float, default=cfg.learning_rate)
    return ap.parse_args()


def main():
    args = parse_args()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    cfg = TrainConfig(data=args.data, epochs=args.epochs, out_dir=args.out, learning_rate=args.lr)
    train_ds, val_ds, steps = make_datasets(cfg.data, cfg.batch_size, cfg.image_size)

    model = DiffusionModel(build_unet(cfg.image_size, cfg.widths, cfg.block_depth), cfg)
    # cfg.batch_size is the global batch split over workers, so the lr stays as tuned
    optimizer = keras.optimizers.AdamW(learning_rate=cfg.learning_rate, weight_decay=cfg.weight_decay)
    model.compile(optimizer=hvd.DistributedOptimizer(optimizer), loss=keras.losses.mean_absolute_error)

    callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0)]
    if hvd.rank() == 0:
        os.makedirs(cfg.out_dir, exist_ok=True)
        callbacks += [
            keras.callbacks.ModelCheckpoint(os.path.join(cfg.out_dir, "ddim.weights.h5"), monitor="val_n_loss",
                                            mode="min", save_best_only=True, save_weights_only=True),
            keras.callbacks.CSVLogger(os.path.join(cfg.out_dir, "log.csv")),
            SampleWriter(cfg.out_dir, every=cfg.sample_every),
        ]

    model.fit(train_ds, epochs=cfg.epochs, steps_per_epoch=steps, validation_data=val_ds,
              callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)


if __name__ == "__main__":
    main()
