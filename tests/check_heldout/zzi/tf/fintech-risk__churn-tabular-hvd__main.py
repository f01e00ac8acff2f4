"""Churn model on the monthly customer snapshot (tabular, Keras functional API).

Expects a CSV with a header row, numeric features and a 0/1 `churned` column.
Launch with: mpirun -np 4 python main.py --csv snapshot_2024_06.csv
"""
from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd_tf
import horovod.tensorflow.keras as hvd


@dataclass
class Opts:
    csv: str
    target: str = "churned"
    test_frac: float = 0.15
    batch: int = 256
    lr: float = 1e-3
    epochs: int = 20
    out: str = "models/churn"
    seed: int = 2024


def parse() -> Opts:
    ap = argparse.ArgumentParser()
    ap.add_argument("--csv", required=True)
    ap.add_argument("--batch", type=int, default=Opts.batch)
    ap.add_argument("--lr", type=float, default=Opts.lr)
    ap.add_argument("--epochs", type=int, default=Opts.epochs)
    ap.add_argument("--out", default=Opts.out)
    return Opts(**vars(ap.parse_args()))


def read_table(path: str, target: str):
    header = open(path).readline().strip().split(",")
    table = np.genfromtxt(path, delimiter=",", skip_header=1, dtype="float32")
    col = header.index(target)
    y = table[:, col]
    x = np.delete(table, col, axis=1)
    x = np.nan_to_num(x)
    return x, y


def split_train_test(x, y, frac, seed):
    order = np.random.default_rng(seed).permutation(len(x))
    n_test = int(len(x) * frac)
    te, tr = order[:n_test], order[n_test:]
    return (x[tr], y[tr]), (x[te], y[te])


def my_part(a: np.ndarray) -> np.ndarray:
    """Rank r keeps rows r, r+size, r+2*size, ... trimmed so that all ranks hold the same count."""
    per_rank = len(a) // hvd.size()
    return a[hvd.rank()::hvd.size()][:per_rank]


def build(n_features: int) -> keras.Model:
    inp = keras.Input(shape=(n_features,), name="features")
    h = keras.layers.Dense(128, activation="relu")(inp)
    h = keras.layers.Dropout(0.2)(h)
    h = keras.layers.Dense(64, activation="relu")(h)
    out = keras.layers.Dense(1, activation="sigmoid", name="p_churn")(h)
    return keras.Model(inp, out)


def main() -> int:
    o = parse()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    root = hvd.rank() == 0

    x, y = read_table(o.csv, o.target)
    (x_tr, y_tr), (x_te, y_te) = split_train_test(x, y, o.test_frac, o.seed)
    mu, sd = x_tr.mean(0), x_tr.std(0) + 1e-6
    x_tr, x_te = (x_tr - mu) / sd, (x_te - mu) / sd
    x_tr, y_tr = my_part(x_tr), my_part(y_tr)

    model = build(x.shape[1])
    # same starting point everywhere; optimizer slots start at zero on every rank anyway
    hvd_tf.broadcast_variables(model.variables, root_rank=0)

    model.compile(
        optimizer=hvd.DistributedOptimizer(keras.optimizers.Adam(o.lr * hvd.size())),
        loss="binary_crossentropy",
        metrics=[keras.metrics.AUC(name="auc"), "accuracy"],
    )

    cbs = []
    if root:
        os.makedirs(o.out, exist_ok=True)
        cbs.append(keras.callbacks.CSVLogger(os.path.join(o.out, "train_log.csv")))

    # x_te is the full test set on every rank: validation numbers are identical across ranks
    model.fit(x_tr, y_tr, batch_size=o.batch, epochs=o.epochs, shuffle=True,
              validation_data=(x_te, y_te), callbacks=cbs, verbose=2 if root else 0)

    loss, auc, acc = model.evaluate(x_te, y_te, batch_size=1024, verbose=0)
    if root:
        print(f"test loss={loss:.4f} auc={auc:.4f} acc={acc:.4f}")
        model.save(os.path.join(o.out, "churn.keras"))
        np.savez(os.path.join(o.out, "scaler.npz"), mu=mu, sd=sd)
    return 0


if __name__ == "__main__":
    sys.exit(main())
