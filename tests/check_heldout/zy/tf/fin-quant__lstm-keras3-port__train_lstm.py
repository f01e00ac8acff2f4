#!/usr/bin/env python
"""
Next-day return LSTM on minute bars, data parallel with Horovod.

2024-03: moved from tf.keras 2.x (lr=, .h5, fit_generator) to Keras 3.
"""
import argparse
import logging
import os

import numpy as np
import tensorflow as tf
import keras
from keras import layers
import horovod.tensorflow.keras as hvd

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
logger = logging.getLogger("lstm")


def get_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--prices", default="data/bars_1m.npy", help="(T, features) float array")
    parser.add_argument("--window", type=int, default=120)
    parser.add_argument("--horizon", type=int, default=1)
    parser.add_argument("--val-frac", type=float, default=0.1)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--lr", type=float, default=5e-4)
    parser.add_argument("--epochs", type=int, default=100)
    parser.add_argument("--patience", type=int, default=8)
    parser.add_argument("--out", default="models/lstm")
    return parser.parse_args()


def make_windows(series, window, horizon):
    x = np.lib.stride_tricks.sliding_window_view(series[:-horizon], window, axis=0)
    x = np.transpose(x, (0, 2, 1)).astype(np.float32)
    y = series[window + horizon - 1:, 0].astype(np.float32)
    return x, y[:len(x)]


def build_model(window, n_features):
    inputs = keras.Input((window, n_features))
    x = layers.LSTM(128, return_sequences=True)(inputs)
    x = layers.Dropout(0.2)(x)
    x = layers.LSTM(64)(x)
    x = layers.Dense(32, activation="relu")(x)
    return keras.Model(inputs, layers.Dense(1)(x))


def main():
    args = get_args()
    hvd.init()

    gpus = tf.config.experimental.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    series = np.load(args.prices)
    mu, sigma = series.mean(0), series.std(0) + 1e-8
    series = (series - mu) / sigma
    x, y = make_windows(series, args.window, args.horizon)
    split = int(len(x) * (1 - args.val_frac))
    x_train, y_train, x_val, y_val = x[:split], y[:split], x[split:], y[split:]

    # each worker takes every size-th window
    x_train, y_train = x_train[hvd.rank()::hvd.size()], y_train[hvd.rank()::hvd.size()]
    x_val, y_val = x_val[hvd.rank()::hvd.size()], y_val[hvd.rank()::hvd.size()]
    if hvd.rank() == 0:
        logger.info("train windows/worker %d, val windows/worker %d", len(x_train), len(x_val))

    model = build_model(args.window, x.shape[-1])
    # Keras 3: `lr` is gone, use learning_rate
    optimizer = keras.optimizers.Adam(learning_rate=args.lr, clipnorm=1.0)
    optimizer = hvd.DistributedOptimizer(optimizer)
    model.compile(optimizer=optimizer, loss="huber", metrics=["mae"])

    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=3, min_lr=1e-6),
        keras.callbacks.EarlyStopping(monitor="val_loss", patience=args.patience, restore_best_weights=True),
    ]
    if hvd.rank() == 0:
        os.makedirs(args.out, exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(args.out, "best.keras"),
                                                         monitor="val_loss", save_best_only=True))

    # same number of steps on every worker (shards differ by at most one window)
    steps = (split // hvd.size()) // args.batch_size
    history = model.fit(x_train, y_train,
                        batch_size=args.batch_size,
                        steps_per_epoch=steps,
                        validation_data=(x_val, y_val),
                        epochs=args.epochs,
                        shuffle=True,
                        callbacks=callbacks,
                        verbose=2 if hvd.rank() == 0 else 0)

    if hvd.rank() == 0:
        best = min(history.history["val_loss"])
        logger.info("best val_loss %.5f after %d epochs", best, len(history.history["val_loss"]))
        np.savez(os.path.join(args.out, "norm.npz"), mu=mu, sigma=sigma)


if __name__ == "__main__":
    main()
