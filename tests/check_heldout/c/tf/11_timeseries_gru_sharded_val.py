"""GRU forecaster for sensor time series, trained with Horovod on the cluster.

Input: an .npy array of shape (T, n_features); target = feature 0, `horizon` steps ahead.
"""
import argparse
import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow.keras as hvd

p = argparse.ArgumentParser()
p.add_argument("--series", default="data/sensors.npy")
p.add_argument("--window", type=int, default=96)
p.add_argument("--horizon", type=int, default=12)
p.add_argument("--batch", type=int, default=256)
p.add_argument("--epochs", type=int, default=40)
p.add_argument("--lr", type=float, default=5e-4)
p.add_argument("--ckpt", default="ckpt/gru_best.h5")
args = p.parse_args()

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
if gpus:
    tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def make_windows(series, window, horizon):
    n = len(series) - window - horizon + 1
    idx = np.arange(window)[None, :] + np.arange(n)[:, None]
    x = series[idx]
    y = series[np.arange(n) + window + horizon - 1, 0]
    return x.astype("float32"), y.astype("float32")


def split(series):
    n = len(series)
    a, b = int(0.7 * n), int(0.85 * n)
    return series[:a], series[a:b], series[b:]


def shard(*arrays):
    # give every worker an interleaved slice
    return [arr[hvd.rank()::hvd.size()] for arr in arrays]


def build(window, n_features):
    model = tf.keras.Sequential([
        tf.keras.layers.Input(shape=(window, n_features)),
        tf.keras.layers.GRU(128, return_sequences=True),
        tf.keras.layers.GRU(64),
        tf.keras.layers.Dense(64, activation="relu"),
        tf.keras.layers.Dense(1),
    ])
    return model


series = np.load(args.series)
mu, sigma = series.mean(axis=0), series.std(axis=0) + 1e-8
series = (series - mu) / sigma
tr, va, te = split(series)

x_tr, y_tr = make_windows(tr, args.window, args.horizon)
x_va, y_va = make_windows(va, args.window, args.horizon)
x_te, y_te = make_windows(te, args.window, args.horizon)
x_tr, y_tr = shard(x_tr, y_tr)
x_va, y_va = shard(x_va, y_va)
x_te, y_te = shard(x_te, y_te)

model = build(args.window, series.shape[1])
opt = tf.keras.optimizers.Adam(learning_rate=args.lr * hvd.size(), clipnorm=1.0)
model.compile(optimizer=hvd.DistributedOptimizer(opt), loss="mse", metrics=["mae"])

callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.LearningRateWarmupCallback(initial_lr=args.lr * hvd.size(), warmup_epochs=2),
]
if hvd.rank() == 0:
    os.makedirs(os.path.dirname(args.ckpt), exist_ok=True)
    callbacks.append(tf.keras.callbacks.ModelCheckpoint(args.ckpt, monitor="val_loss",
                                                        save_best_only=True))

hist = model.fit(x_tr, y_tr,
                 batch_size=args.batch,
                 epochs=args.epochs,
                 validation_data=(x_va, y_va),
                 callbacks=callbacks,
                 verbose=2 if hvd.rank() == 0 else 0)

if hvd.rank() == 0:
    best = int(np.argmin(hist.history["val_loss"]))
    print("best epoch %d: val_loss %.4f val_mae %.4f" % (best + 1, hist.history["val_loss"][best],
                                                         hist.history["val_mae"][best]))

test_mse, test_mae = model.evaluate(x_te, y_te, batch_size=1024, verbose=0)
if hvd.rank() == 0:
    print("test MSE %.4f  test MAE %.4f (de-normalised MAE %.4f)" % (test_mse, test_mae,
                                                                      test_mae * sigma[0]))
