# -*- coding: utf-8 -*-
"""
Statistical downscaling of ERA5 2 m temperature / 10 m wind (0.25 deg) to the
COSMO-REA6 grid (~6 km) with a residual super-resolution CNN.

Input files: yearly npz files with `lr` (T, 32, 32, C) and `hr` (T, 128, 128, C).
Run on levante: see jobs/srcnn_4gpu.sbatch (srun python train_srcnn.py --years 1995-2014)
"""
import argparse
import glob
import os

import numpy as np
import tensorflow as tf
import keras
from keras import layers
import horovod.tensorflow.keras as hvd

p = argparse.ArgumentParser()
p.add_argument("--data-dir", default="/work/bb1152/era5_rea6_pairs")
p.add_argument("--years", default="1995-2014")
p.add_argument("--val-year", type=int, default=2015)
p.add_argument("--vars", default="t2m,u10,v10")
p.add_argument("--batch-size", type=int, default=16)
p.add_argument("--epochs", type=int, default=40)
p.add_argument("--lr", type=float, default=2e-4)
p.add_argument("--warmup-epochs", type=int, default=3)
p.add_argument("--seed", type=int, default=2024)
p.add_argument("--outdir", default="models/srcnn")
args = p.parse_args()

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

# different random crops / flips on each worker
keras.utils.set_random_seed(args.seed + hvd.rank())

y0, y1 = map(int, args.years.split("-"))
train_years = list(range(y0, y1 + 1))
my_years = train_years[hvd.rank()::hvd.size()]


def load_years(years):
    lr, hr = [], []
    for y in years:
        d = np.load(os.path.join(args.data_dir, f"pairs_{y}.npz"))
        lr.append(d["lr"].astype("float32"))
        hr.append(d["hr"].astype("float32"))
    return np.concatenate(lr), np.concatenate(hr)


x_tr, y_tr = load_years(my_years)
x_va, y_va = load_years([args.val_year])
mu, sd = x_tr.mean(axis=(0, 1, 2)), x_tr.std(axis=(0, 1, 2)) + 1e-6
mu, sd = hvd.allreduce(mu, name="mu").numpy(), hvd.allreduce(sd, name="sd").numpy()
norm = lambda a: (a - mu) / sd

# years have 365/366 days: run the same number of steps on every rank
steps = int(np.min(hvd.allgather(np.array([len(x_tr) // args.batch_size], "int32"), name="steps")))
train_ds = (tf.data.Dataset.from_tensor_slices((norm(x_tr), norm(y_tr)))
            .shuffle(4096).repeat().batch(args.batch_size, drop_remainder=True)
            .prefetch(tf.data.AUTOTUNE))
val_ds = tf.data.Dataset.from_tensor_slices((norm(x_va), norm(y_va))).batch(32)


def build_srcnn(c, scale=4, filters=64, n_blocks=8):
    inp = keras.Input((None, None, c))
    x = layers.Conv2D(filters, 3, padding="same")(inp)
    skip = x
    for _ in range(n_blocks):
        h = layers.Conv2D(filters, 3, padding="same", activation="relu")(x)
        h = layers.Conv2D(filters, 3, padding="same")(h)
        x = layers.Add()([x, layers.Rescaling(0.1)(h)])
    x = layers.Add()([x, skip])
    for _ in range(int(np.log2(scale))):
        x = layers.Conv2D(filters * 4, 3, padding="same")(x)
        x = layers.Lambda(lambda t: tf.nn.depth_to_space(t, 2))(x)
    up = layers.UpSampling2D(scale, interpolation="bilinear")(inp)
    return keras.Model(inp, layers.Add()([up, layers.Conv2D(c, 3, padding="same")(x)]))


n_vars = len(args.vars.split(","))
model = build_srcnn(n_vars)
scaled_lr = args.lr * hvd.size()
opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=scaled_lr, clipnorm=1.0))
model.compile(optimizer=opt, loss="mae", metrics=["mse"])

callbacks = [
    hvd.callbacks.MetricAverageCallback(),
    hvd.callbacks.LearningRateWarmupCallback(warmup_epochs=args.warmup_epochs, verbose=1),
    keras.callbacks.EarlyStopping(monitor="val_loss", patience=8),
]
if hvd.rank() == 0:
    os.makedirs(args.outdir, exist_ok=True)
    callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(args.outdir, "srcnn_best.weights.h5"),
                                                     save_best_only=True, save_weights_only=True))
    callbacks.append(keras.callbacks.CSVLogger(os.path.join(args.outdir, "history.csv")))

hist = model.fit(train_ds, steps_per_epoch=steps, epochs=args.epochs,
                 validation_data=val_ds, callbacks=callbacks,
                 verbose=1 if hvd.rank() == 0 else 0)
if hvd.rank() == 0:
    rmse = np.sqrt(hist.history["val_mse"][-1]) * sd
    print("final val RMSE per variable (physical units):", dict(zip(args.vars.split(","), rmse.round(3))))
