"""Keras 3 + Horovod: convolutional autoencoder over all machines' sensor windows."""
import argparse
import dataclasses

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from sensorae.callbacks import build_callbacks
from sensorae.config import Config
from sensorae.data import autoencoder_dataset, count_windows, labelled_arrays, list_machines
from sensorae.model import build_autoencoder
from sensorae.threshold import fit_threshold, prf1, reconstruction_errors


def parse():
    ap = argparse.ArgumentParser()
    for f in dataclasses.fields(Config):
        ap.add_argument(f"--{f.name}", type=type(f.default), default=f.default)
    return Config(**vars(ap.parse_args()))


def main():
    cfg = parse()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    train_files = list_machines(cfg.data_dir, "train")
    val_files = list_machines(cfg.data_dir, "val")
    global_batch = cfg.batch_size * hvd.size()
    steps = count_windows(train_files) // global_batch
    val_steps = max(1, count_windows(val_files) // global_batch)
    train_ds = autoencoder_dataset(train_files, cfg.batch_size, hvd.rank(), hvd.size())
    val_ds = autoencoder_dataset(val_files, cfg.batch_size, hvd.rank(), hvd.size(), shuffle=False)

    model = build_autoencoder(cfg.window, cfg.channels)
    scaled_lr = cfg.lr * hvd.size()
    opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=scaled_lr))
    model.compile(optimizer=opt, loss="mse")

    model.fit(train_ds, steps_per_epoch=steps, epochs=cfg.epochs, validation_data=val_ds,
              validation_steps=val_steps, callbacks=build_callbacks(cfg, scaled_lr),
              verbose=2 if hvd.rank() == 0 else 0)

    x_train = np.concatenate([np.load(f)["x"] for f in train_files[hvd.rank()::hvd.size()]] or
                             [np.zeros((0, cfg.window, cfg.channels))]).astype("float32")
    threshold = fit_threshold(reconstruction_errors(model, x_train), cfg.quantile)
    if hvd.rank() == 0:
        x_test, y_test = labelled_arrays(list_machines(cfg.data_dir, "test"))
        p, r, f1 = prf1(reconstruction_errors(model, x_test), y_test, threshold)
        print(f"threshold={threshold:.5f} precision={p:.3f} recall={r:.3f} f1={f1:.3f}")


if __name__ == "__main__":
    main()
