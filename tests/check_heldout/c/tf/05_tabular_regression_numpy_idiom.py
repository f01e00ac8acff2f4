#!/usr/bin/env python3
"""
Surrogate model for the simulation outputs (tabular regression).
Reads a CSV produced by the parameter sweep and fits an MLP with Horovod.

    mpirun -np 16 python 05_tabular_regression_numpy_idiom.py --csv sweep.csv --target energy
"""
import argparse
import os
import pickle

import numpy as np
import pandas as pd
import tensorflow as tf
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
import horovod.tensorflow.keras as hvd


def get_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--csv", required=True)
    ap.add_argument("--target", default="energy")
    ap.add_argument("--bs", type=int, default=512)
    ap.add_argument("--epochs", type=int, default=200)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--width", type=int, default=256)
    ap.add_argument("--depth", type=int, default=4)
    ap.add_argument("--outdir", default="surrogate_out")
    return ap.parse_args()


def mlp(n_in, width, depth):
    inp = tf.keras.Input(shape=(n_in,))
    h = inp
    for _ in range(depth):
        h = tf.keras.layers.Dense(width, activation="swish")(h)
        h = tf.keras.layers.LayerNormalization()(h)
    out = tf.keras.layers.Dense(1)(h)
    return tf.keras.Model(inp, out)


def main():
    args = get_args()
    hvd.init()
    world = hvd.size()
    is_master = hvd.rank() == 0

    # CPU partition: share the node's cores between the local ranks
    n_cores = os.cpu_count() or 1
    threads = max(1, n_cores // hvd.local_size())
    tf.config.threading.set_intra_op_parallelism_threads(threads)
    tf.config.threading.set_inter_op_parallelism_threads(2)

    df = pd.read_csv(args.csv)
    y = df.pop(args.target).values.astype(np.float32)
    X = df.values.astype(np.float32)

    # same split on every rank (fixed random_state)
    X_tr, X_val, y_tr, y_val = train_test_split(X, y, test_size=0.15, random_state=0)
    scaler = StandardScaler().fit(X_tr)
    X_tr, X_val = scaler.transform(X_tr), scaler.transform(X_val)

    model = mlp(X.shape[1], args.width, args.depth)
    lr = args.lr * world
    opt = hvd.DistributedOptimizer(tf.keras.optimizers.Adam(learning_rate=lr))
    model.compile(optimizer=opt, loss="mse", metrics=["mae"], experimental_run_tf_function=False)

    # fit() reshuffles on every rank independently; each rank does 1/world of an epoch
    steps_per_epoch = max(1, len(X_tr) // (args.bs * world))

    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=lr, warmup_epochs=5,
                                                 steps_per_epoch=steps_per_epoch),
        # after warmup, cut the LR when the (averaged) val loss stalls
        tf.keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=10, min_lr=1e-6),
    ]
    if is_master:
        os.makedirs(args.outdir, exist_ok=True)
        cbs.append(tf.keras.callbacks.ModelCheckpoint(os.path.join(args.outdir, "best.h5"),
                                                      monitor="val_loss", save_best_only=True))
        cbs.append(tf.keras.callbacks.CSVLogger(os.path.join(args.outdir, "log.csv")))

    model.fit(X_tr, y_tr,
              batch_size=args.bs,
              steps_per_epoch=steps_per_epoch,
              epochs=args.epochs,
              shuffle=True,
              validation_data=(X_val, y_val),
              callbacks=cbs,
              verbose=2 if is_master else 0)

    val_mse, val_mae = model.evaluate(X_val, y_val, batch_size=4096, verbose=0)
    if is_master:
        print(f"validation MSE {val_mse:.5f}  MAE {val_mae:.5f}")
        model.save(os.path.join(args.outdir, "final.h5"))
        with open(os.path.join(args.outdir, "scaler.pkl"), "wb") as fh:
            pickle.dump(scaler, fh)


if __name__ == "__main__":
    main()
