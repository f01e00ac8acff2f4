#!/usr/bin/env python3
"""Ames mutagenicity (TDC AMES, ~7.3k compounds) from MACCS + Morgan bits, Keras + Horovod.

Input CSV: drug_id,bits,y,split   (bits = '0101...' string, split in {train,valid,test})

    horovodrun -np 4 python keras_train.py --csv data/ames_fp.csv
"""
import argparse
import csv
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd


def read_split(path):
    parts = {"train": ([], []), "valid": ([], []), "test": ([], [])}
    with open(path, newline="") as fh:
        for row in csv.DictReader(fh):
            xs, ys = parts[row["split"]]
            xs.append(np.frombuffer(row["bits"].encode(), dtype=np.uint8) - ord("0"))
            ys.append(int(row["y"]))
    return {k: (np.stack(v[0]).astype(np.float32), np.asarray(v[1], np.float32)) for k, v in parts.items()}


def sharded(x, y, batch, train):
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(hvd.size(), hvd.rank())
    if train:
        ds = ds.shuffle(8192).repeat()
    return ds.batch(batch)


def build_model(n_bits, dropout):
    reg = keras.regularizers.l2(1e-5)
    return keras.Sequential([
        keras.Input((n_bits,)),
        keras.layers.Dense(1024, activation="relu", kernel_regularizer=reg),
        keras.layers.Dropout(dropout),
        keras.layers.Dense(256, activation="relu", kernel_regularizer=reg),
        keras.layers.Dropout(dropout),
        keras.layers.Dense(1, activation="sigmoid"),
    ])


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--csv", default="data/ames_fp.csv")
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--epochs", type=int, default=50)
    ap.add_argument("--dropout", type=float, default=0.4)
    ap.add_argument("--save-dir", default="models")
    args = ap.parse_args()

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
        tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)

    data = read_split(args.csv)
    (x_tr, y_tr), (x_va, y_va), (x_te, y_te) = data["train"], data["valid"], data["test"]
    n_pos = y_tr.sum()
    class_weight = {0: len(y_tr) / (2.0 * (len(y_tr) - n_pos)), 1: len(y_tr) / (2.0 * n_pos)}

    model = build_model(x_tr.shape[1], args.dropout)
    model.compile(
        optimizer=hvd.DistributedOptimizer(keras.optimizers.Adam(args.lr * hvd.size())),
        loss="binary_crossentropy",
        metrics=[keras.metrics.AUC(name="auc"), keras.metrics.BinaryAccuracy(name="acc")],
    )

    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        keras.callbacks.EarlyStopping(monitor="val_auc", mode="max", patience=8, restore_best_weights=True),
    ]
    if hvd.rank() == 0:
        os.makedirs(args.save_dir, exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(args.save_dir, "ames_mlp.keras"),
                                                         monitor="val_auc", mode="max", save_best_only=True))

    steps = len(y_tr) // (args.batch * hvd.size())
    model.fit(sharded(x_tr, y_tr, args.batch, True), steps_per_epoch=steps, epochs=args.epochs,
              validation_data=sharded(x_va, y_va, args.batch, False), class_weight=class_weight,
              callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)

    loss, auc, acc = model.evaluate(sharded(x_te, y_te, args.batch, False), verbose=0)
    if hvd.rank() == 0:
        print(f"test: loss={loss:.4f} auroc={auc:.4f} acc={acc:.4f}")
