"""Hourly 2-m temperature forecasting for one weather station with a GRU, custom TF2 loop + Horovod.

Every worker takes a contiguous block of the training windows.
Example:  mpirun -np 4 python train.py --csv data/ghcnh_station.csv --epochs 15
"""
import argparse
import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

ap = argparse.ArgumentParser()
ap.add_argument("--csv", default=None)
ap.add_argument("--window", type=int, default=72)
ap.add_argument("--lead", type=int, default=12)
ap.add_argument("--batch", type=int, default=128)
ap.add_argument("--lr", type=float, default=2e-3)
ap.add_argument("--epochs", type=int, default=15)
ap.add_argument("--ckpt", default="./tf_ckpt/gru_temp")
args = ap.parse_args()

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def read_station(path):
    if path is None:
        t = np.arange(24 * 3 * 365)
        temp = 12 + 9 * np.sin(2 * np.pi * t / (24 * 365)) + 5 * np.sin(2 * np.pi * t / 24)
        temp += np.random.default_rng(11).normal(0, 1.2, len(t))
        hum = 70 - 0.8 * temp + np.random.default_rng(12).normal(0, 3, len(t))
        return np.stack([temp, hum, np.sin(2 * np.pi * t / 24), np.cos(2 * np.pi * t / 24)], 1).astype("float32")
    return np.genfromtxt(path, delimiter=",", skip_header=1, usecols=(1, 2, 3, 4)).astype("float32")


data = read_station(args.csv)
split = int(len(data) * 0.8)
mean, std = data[:split].mean(0), data[:split].std(0)
data = (data - mean) / std


def windows(arr):
    idx = np.arange(len(arr) - args.window - args.lead)
    x = np.stack([arr[i:i + args.window] for i in idx])
    y = arr[idx + args.window + args.lead - 1, 0]
    return x, y


def rank_block(x, y):
    per = len(x) // hvd.size()
    s = hvd.rank() * per
    return x[s:s + per], y[s:s + per]


x_tr, y_tr = rank_block(*windows(data[:split]))
x_va, y_va = rank_block(*windows(data[split:]))
train_ds = tf.data.Dataset.from_tensor_slices((x_tr, y_tr)).shuffle(10_000, seed=hvd.rank()).batch(args.batch, drop_remainder=True)
val_ds = tf.data.Dataset.from_tensor_slices((x_va, y_va)).batch(512)

model = tf.keras.Sequential([
    tf.keras.Input((args.window, data.shape[1])),
    tf.keras.layers.GRU(64, return_sequences=True),
    tf.keras.layers.GRU(64),
    tf.keras.layers.Dense(1),
])
loss_fn = tf.keras.losses.Huber()
opt = tf.keras.optimizers.Adam(learning_rate=args.lr)

ckpt = tf.train.Checkpoint(model=model, optimizer=opt)


@tf.function
def train_step(x, y, first_batch):
    with tf.GradientTape() as tape:
        pred = tf.squeeze(model(x, training=True), -1)
        loss = loss_fn(y, pred)
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    if first_batch:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(opt.variables, root_rank=0)
    return loss


@tf.function
def val_step(x, y):
    pred = tf.squeeze(model(x, training=False), -1)
    return tf.reduce_sum(tf.abs(pred - y)), tf.cast(tf.size(y), tf.float32)


first = True
for epoch in range(args.epochs):
    for x, y in train_ds:
        loss = train_step(x, y, first)
        first = False
    abs_err, count = 0.0, 0.0
    for x, y in val_ds:
        e, n = val_step(x, y)
        abs_err += e
        count += n
    val_mae_degc = float(abs_err / count) * std[0]
    if hvd.rank() == 0:
        print(f"epoch {epoch + 1}: train loss {float(loss):.4f}  val MAE {val_mae_degc:.3f} degC")
        os.makedirs(os.path.dirname(args.ckpt), exist_ok=True)
        ckpt.write(args.ckpt)
