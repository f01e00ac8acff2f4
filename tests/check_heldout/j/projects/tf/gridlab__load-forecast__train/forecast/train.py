"""Training entry point, called as ``forecast.cli:main`` -> ``train.main(args)`` on every Horovod rank."""
import json
import os

import numpy as np
import tensorflow as tf
from tensorflow import keras
import horovod.tensorflow.keras as hvd

from .callbacks import build_callbacks
from .model import lstm_forecaster
from .windows import full_dataset, load_series, make_windows, train_dataset


def _pin_gpu():
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def main(args):
    hvd.init()
    _pin_gpu()
    keras.utils.set_random_seed(args.seed)

    load, calendar, temp = load_series(args.data)
    x, y, (mu, sd) = make_windows(load, calendar, temp, args.history, args.horizon)
    n_holdout = args.holdout_days
    x_train, y_train, x_hold, y_hold = x[:-n_holdout], y[:-n_holdout], x[-n_holdout:], y[-n_holdout:]

    train_ds = train_dataset(x_train, y_train, args.batch_size, hvd.rank(), hvd.size(), args.seed)
    holdout_ds = full_dataset(x_hold, y_hold, 1024)
    steps = len(x_train) // (args.batch_size * hvd.size())

    model = lstm_forecaster(args.history, x.shape[-1], args.horizon, args.units)
    peak_lr = args.lr * hvd.size()
    opt = hvd.DistributedOptimizer(keras.optimizers.Adam(peak_lr))
    model.compile(optimizer=opt, loss="mse", metrics=["mae"])

    if hvd.rank() == 0:
        os.makedirs(args.out, exist_ok=True)
    model.fit(train_ds, steps_per_epoch=steps, epochs=args.epochs, validation_data=holdout_ds,
              callbacks=build_callbacks(args.out, peak_lr, args.warmup_epochs, steps),
              verbose=2 if hvd.rank() == 0 else 0)

    if hvd.rank() == 0:
        pred = model.predict(holdout_ds, verbose=0) * sd + mu
        mape = float(np.mean(np.abs(pred - (y_hold * sd + mu)) / (y_hold * sd + mu)) * 100)
        with open(os.path.join(args.out, "holdout.json"), "w") as f:
            json.dump({"mape_pct": mape, "days": n_holdout}, f)
        print(f"hold-out MAPE {mape:.2f}%")
    return 0
