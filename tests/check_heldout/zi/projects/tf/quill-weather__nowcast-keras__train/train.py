"""Train the 6-hour temperature nowcast model on all stations (Horovod + Keras fit)."""
import json
import os

import keras
import numpy as np
import horovod.tensorflow.keras as hvd

from nowcast import callbacks, config, data, hvd_setup, models

rank, size = hvd_setup.init()
verbose = 2 if rank == 0 else 0

table = data.load_table()
train_series, val_series, (mean, std) = data.split_and_scale(table)

steps_per_epoch = data.n_windows(train_series) // (config.BATCH_SIZE * size)
train_ds = data.windows(train_series, shard=(size, rank), shuffle=True, repeat=True)
val_ds = data.windows(val_series)          # every worker scores the whole validation period

model = models.conv_gru()
scaled_lr = config.BASE_LR * size
opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=scaled_lr))
model.compile(optimizer=opt, loss="mse", metrics=["mae"])

history = model.fit(
    train_ds,
    epochs=config.EPOCHS,
    steps_per_epoch=steps_per_epoch,
    validation_data=val_ds,
    callbacks=callbacks.build(scaled_lr, steps_per_epoch, rank == 0),
    verbose=verbose,
)

if rank == 0:
    np.savez(os.path.join(config.OUT_DIR, "scaler.npz"), mean=mean, std=std)
    with open(os.path.join(config.OUT_DIR, "final_metrics.json"), "w") as f:
        json.dump({k: float(v[-1]) for k, v in history.history.items()}, f, indent=2)
