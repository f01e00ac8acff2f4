"""Forecast the next 64 accelerometer samples of a wind-turbine gearbox (Keras fit + Horovod).

python fit.py --config configs/gearbox.json          # single worker
horovodrun -np 4 python fit.py --config configs/gearbox.json
"""
import argparse
import logging
import os

import keras
import horovod.tensorflow.keras as hvd

from vibro import Settings
from vibro.nets import tcn_forecaster
from vibro.pipeline import load_signal, make_ds, window_starts
from vibro.runtime import start

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")

ap = argparse.ArgumentParser()
ap.add_argument("--config")
ap.add_argument("--epochs", type=int)
ap.add_argument("--batch-size", type=int)
ap.add_argument("--out-dir")
cli = ap.parse_args()
settings = Settings.load(cli.config, epochs=cli.epochs, batch_size=cli.batch_size, out_dir=cli.out_dir)

rank, size = start(settings)

signal = load_signal(settings.data_file)
starts = window_starts(len(signal), settings)
n_val = int(len(starts) * settings.val_fraction)
train_starts, val_starts = starts[:-n_val], starts[-n_val:]
train_ds = make_ds(signal, train_starts, settings, rank, size, train=True)
val_ds = make_ds(signal, val_starts, settings, train=False)
steps_per_epoch = len(train_starts) // (settings.batch_size * size)

model = tcn_forecaster(settings.window, settings.horizon, filters=settings.filters)
optimizer = hvd.DistributedOptimizer(keras.optimizers.Adam(settings.lr))
model.compile(optimizer=optimizer, loss="mse", metrics=["mae"])

callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
    hvd.callbacks.LearningRateWarmupCallback(initial_lr=settings.lr, warmup_epochs=settings.warmup_epochs,
                                             steps_per_epoch=steps_per_epoch),
]
if rank == 0:
    os.makedirs(settings.out_dir, exist_ok=True)
    settings.dump(os.path.join(settings.out_dir, "settings.json"))
    callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(settings.out_dir, "epoch{epoch:02d}.keras")))
    callbacks.append(keras.callbacks.CSVLogger(os.path.join(settings.out_dir, "log.csv")))

model.fit(train_ds, steps_per_epoch=steps_per_epoch, epochs=settings.epochs, validation_data=val_ds,
          callbacks=callbacks, verbose=2 if rank == 0 else 0)
