"""
House price regressor (tabular MLP) - horovod keras demo for the MLOps workshop.
Run:  horovodrun -np 2 python train_regressor.py --data housing.csv
"""
import argparse
import json
import os

import numpy as np
import pandas as pd
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

# ---- defaults ----
BATCH_PER_WORKER = 128
GLOBAL_BATCH = BATCH_PER_WORKER * hvd.size()
BASE_LR = 1e-3
OUT_DIR = os.environ.get("OUT_DIR", "outputs")


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="housing.csv")
    p.add_argument("--target", default="median_house_value")
    p.add_argument("--epochs", type=int, default=40)
    p.add_argument("--log-target", action="store_true", default=True)
    return p.parse_args()


def prepare(df, target, log_target):
    df = df.dropna().copy()
    if "ocean_proximity" in df:
        df = pd.get_dummies(df, columns=["ocean_proximity"], dtype="float32")
    y = df.pop(target).values.astype("float32")
    if log_target:
        y = np.log1p(y)
    return df.values.astype("float32"), y, list(df.columns)


def build(n_in, norm):
    inp = keras.Input((n_in,))
    x = norm(inp)
    for units in (256, 128, 64):
        x = keras.layers.Dense(units, activation="relu")(x)
        x = keras.layers.Dropout(0.1)(x)
    return keras.Model(inp, keras.layers.Dense(1)(x))


def main():
    args = parse()
    hvd.init()

    X, y, cols = prepare(pd.read_csv(args.data), args.target, args.log_target)
    idx = np.random.RandomState(42).permutation(len(X))
    n_tr = int(0.85 * len(X))
    tr, va = idx[:n_tr], idx[n_tr:]

    norm = keras.layers.Normalization()
    norm.adapt(X[tr])                    # same rows on all workers

    train_ds = (tf.data.Dataset.from_tensor_slices((X[tr], y[tr]))
                .shard(hvd.size(), hvd.rank())
                .shuffle(10000).repeat().batch(BATCH_PER_WORKER))
    val_ds = tf.data.Dataset.from_tensor_slices((X[va], y[va])).batch(1024)

    model = build(X.shape[1], norm)
    opt = keras.optimizers.Adam(BASE_LR * hvd.size())
    model.compile(optimizer=hvd.DistributedOptimizer(opt), loss="mse",
                  metrics=[keras.metrics.RootMeanSquaredError(name="rmse")])

    callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0),
                 hvd.callbacks.MetricAverageCallback()]
    if hvd.rank() == 0:
        os.makedirs(OUT_DIR, exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(OUT_DIR, "best.keras"),
                                                         monitor="val_rmse", save_best_only=True))
    hist = model.fit(train_ds, steps_per_epoch=len(tr) // GLOBAL_BATCH, epochs=args.epochs,
                     validation_data=val_ds, callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)

    if hvd.rank() == 0:
        with open(os.path.join(OUT_DIR, "metrics.json"), "w") as f:
            json.dump({"val_rmse": hist.history["val_rmse"][-1], "features": cols}, f)


if __name__ == "__main__":
    main()
