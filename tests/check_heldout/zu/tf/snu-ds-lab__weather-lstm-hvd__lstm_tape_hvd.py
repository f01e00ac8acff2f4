"""Weather forecasting lab (week 9): LSTM on the Jena climate series.

Single-GPU version was lstm_tape.py; horovod lines marked with '# HVD'.
    mpirun -np 4 python lstm_tape_hvd.py --epochs 20
"""
import argparse
import os
import time

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd  # HVD

ap = argparse.ArgumentParser()
ap.add_argument("--csv", default="data/jena_climate_T.csv")
ap.add_argument("--window", type=int, default=120)
ap.add_argument("--horizon", type=int, default=12)
ap.add_argument("--batch", type=int, default=256)
ap.add_argument("--lr", type=float, default=5e-4)
ap.add_argument("--epochs", type=int, default=20)
ap.add_argument("--seed", type=int, default=9)
ap.add_argument("--save", default="models/lstm_best.keras")
args = ap.parse_args()

hvd.init()  # HVD
gpus = tf.config.experimental.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
keras.utils.set_random_seed(args.seed + hvd.rank())  # HVD: different shuffling per worker

series = np.loadtxt(args.csv, delimiter=",", dtype=np.float32)
split = int(len(series) * 0.8)
mu, sigma = series[:split].mean(), series[:split].std()
series = (series - mu) / sigma


def windows(arr):
    n = len(arr) - args.window - args.horizon
    idx = np.arange(args.window)[None, :] + np.arange(n)[:, None]
    x = arr[idx][..., None]
    y = arr[np.arange(n) + args.window + args.horizon - 1]
    return x, y


x_tr, y_tr = windows(series[:split])
x_va, y_va = windows(series[split:])
n_va = len(x_va) // hvd.size() * hvd.size()  # HVD: same number of val windows on each worker
train_ds = (tf.data.Dataset.from_tensor_slices((x_tr, y_tr))
            .shard(hvd.size(), hvd.rank())  # HVD
            .shuffle(8192).batch(args.batch, drop_remainder=True).prefetch(2))
val_ds = (tf.data.Dataset.from_tensor_slices((x_va[:n_va], y_va[:n_va]))
          .shard(hvd.size(), hvd.rank())  # HVD
          .batch(1024))

model = keras.Sequential([
    keras.Input((args.window, 1)),
    keras.layers.LSTM(64, return_sequences=True),
    keras.layers.LSTM(32),
    keras.layers.Dense(1),
])
optimizer = keras.optimizers.Adam(learning_rate=args.lr * hvd.size())  # HVD
mse = keras.losses.MeanSquaredError()


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        pred = model(x, training=True)
        loss = mse(y, tf.squeeze(pred, -1))
    tape = hvd.DistributedGradientTape(tape)  # HVD
    grads = tape.gradient(loss, model.trainable_variables)
    grads, _ = tf.clip_by_global_norm(grads, 1.0)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return loss


def val_mse():
    total, n = 0.0, 0
    for x, y in val_ds:
        pred = tf.squeeze(model(x, training=False), -1)
        total += float(tf.reduce_sum(tf.square(pred - y)))
        n += int(y.shape[0])
    local = tf.constant(total / n)
    return float(hvd.allreduce(local, op=hvd.Average))  # HVD


best = np.inf
for epoch in range(args.epochs):
    t0 = time.time()
    for x, y in train_ds:
        loss = train_step(x, y)
    v = val_mse()
    if hvd.rank() == 0:  # HVD
        print(f"epoch {epoch + 1:02d} train_mse={float(loss):.4f} val_mse={v:.4f} "
              f"val_mae_degC={np.sqrt(v) * sigma:.2f} ({time.time() - t0:.0f}s)")
        if v < best:
            best = v
            os.makedirs(os.path.dirname(args.save), exist_ok=True)
            model.save(args.save)
