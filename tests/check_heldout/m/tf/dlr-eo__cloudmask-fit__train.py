"""Sentinel-2 cloud / shadow segmentation: custom-train_step U-Net trained with Keras fit on Horovod."""
import argparse
import os

import keras
import horovod.tensorflow.keras as hvd

from cloudmask.config import TrainConfig
from cloudmask.data import tile_dataset
from cloudmask.env import setup_gpus
from cloudmask.model import CloudUNet
from cloudmask.schedule import cosine_annealing


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=TrainConfig.epochs)
    ap.add_argument("--batch-size", type=int, default=TrainConfig.batch_size)
    ap.add_argument("--out-dir", default=TrainConfig.out_dir)
    a = ap.parse_args()
    cfg = TrainConfig(epochs=a.epochs, batch_size=a.batch_size, out_dir=a.out_dir)

    hvd.init()
    n_gpus = setup_gpus()

    train_ds = tile_dataset(cfg.train_glob, cfg, hvd.size(), hvd.rank(), train=True)
    val_ds = tile_dataset(cfg.val_glob, cfg, hvd.size(), hvd.rank(), train=False)
    steps_per_epoch = cfg.n_train // (cfg.batch_size * hvd.size())
    val_steps = cfg.n_val // (cfg.batch_size * hvd.size())

    model = CloudUNet(cfg.n_classes, cfg.widths)
    model.build((None, cfg.tile, cfg.tile, cfg.bands))
    model.compile(optimizer=keras.optimizers.Adam(cfg.lr * hvd.size()),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=[keras.metrics.SparseCategoricalAccuracy(name="pix_acc")])

    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        cosine_annealing(cfg),
    ]
    if hvd.rank() == 0:
        os.makedirs(cfg.out_dir, exist_ok=True)
        callbacks += [keras.callbacks.ModelCheckpoint(os.path.join(cfg.out_dir, "unet_{epoch:03d}.weights.h5"),
                                                      save_weights_only=True),
                      keras.callbacks.TensorBoard(os.path.join(cfg.out_dir, "tb"))]
        print(f"{hvd.size()} workers, {n_gpus} GPU(s) visible per worker")

    model.fit(train_ds, epochs=cfg.epochs, steps_per_epoch=steps_per_epoch,
              validation_data=val_ds, validation_steps=val_steps,
              callbacks=callbacks, verbose=1 if hvd.rank() == 0 else 0)


if __name__ == "__main__":
    main()
