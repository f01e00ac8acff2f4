#!/usr/bin/env python3
# Tabular regression (material property prediction) with Keras + Horovod.
# Setonix GPU partition, adapted from the Pawsey "ML on Setonix" hands-on:
#   srun -N 1 -n 8 --gpus-per-node=8 python train_mlp.py --data features.npz
import argparse
import os
import time

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

p = argparse.ArgumentParser()
p.add_argument("--data", default="features.npz")
p.add_argument("--epochs", type=int, default=200)
p.add_argument("--batch", type=int, default=512)
p.add_argument("--lr", type=float, default=1e-3)
p.add_argument("--hidden", type=int, nargs="+", default=[512, 256, 128])
p.add_argument("--dropout", type=float, default=0.1)
p.add_argument("--val-frac", type=float, default=0.15)
p.add_argument("--outdir", default="results")
args = p.parse_args()

hvd.init()

# let TF grab GPU memory as it needs it instead of all at once
for dev in tf.config.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(dev, True)

if hvd.rank() == 0:
    print(f"running on {hvd.size()} ranks, TF {tf.__version__}, Keras {keras.__version__}")

# ---------------------------------------------------------------- data
raw = np.load(args.data)
X, y = raw["X"].astype(np.float32), raw["y"].astype(np.float32)
rng = np.random.default_rng(12345)          # same split on every rank
idx = rng.permutation(len(X))
n_val = int(len(X) * args.val_frac)
val_idx, tr_idx = idx[:n_val], idx[n_val:]

mu, sigma = X[tr_idx].mean(0), X[tr_idx].std(0) + 1e-6
X = (X - mu) / sigma
y_mu, y_sigma = y[tr_idx].mean(), y[tr_idx].std()
y = (y - y_mu) / y_sigma

# contiguous block per rank, same length everywhere
per_rank = len(tr_idx) // hvd.size()
my_idx = tr_idx[hvd.rank() * per_rank:(hvd.rank() + 1) * per_rank]
x_train, y_train = X[my_idx], y[my_idx]
x_val, y_val = X[val_idx], y[val_idx]

# ---------------------------------------------------------------- model
inputs = keras.Input(shape=(X.shape[1],))
h = inputs
for width in args.hidden:
    h = keras.layers.Dense(width, activation="gelu")(h)
    h = keras.layers.Dropout(args.dropout)(h)
outputs = keras.layers.Dense(1)(h)
model = keras.Model(inputs, outputs)

opt = keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
opt = hvd.DistributedOptimizer(opt)
model.compile(optimizer=opt, loss="mse", metrics=["mae"])


class EpochTimer(keras.callbacks.Callback):
    def on_epoch_begin(self, epoch, logs=None):
        self._t = time.time()

    def on_epoch_end(self, epoch, logs=None):
        dt = time.time() - self._t
        if logs is not None:
            logs["samples_per_sec_rank"] = len(x_train) / dt


os.makedirs(args.outdir, exist_ok=True)
callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
    EpochTimer(),
    keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=10, min_lr=1e-6),
    keras.callbacks.ModelCheckpoint(os.path.join(args.outdir, "best_mlp.keras"),
                                    monitor="val_loss", save_best_only=True),
]
if hvd.rank() == 0:
    callbacks.append(keras.callbacks.CSVLogger(os.path.join(args.outdir, "log.csv")))

history = model.fit(x_train, y_train,
                    batch_size=args.batch,
                    epochs=args.epochs,
                    validation_data=(x_val, y_val),
                    callbacks=callbacks,
                    verbose=2 if hvd.rank() == 0 else 0)

if hvd.rank() == 0:
    best = min(history.history["val_loss"])
    print(f"best val mse (standardised): {best:.4f}, in original units: {best * y_sigma ** 2:.4f}")
