#!/usr/bin/env python
"""Sweep driver: for each (lr, batch) point, start a Horovod job with horovod.run() and collect
the per-rank return values.

    python run_sweep.py --num-proc 4 --lrs 0.0005 0.001 0.002 --batch-sizes 64 128
"""
import argparse
import json
import os
from datetime import datetime

import horovod
import horovod.tensorflow.keras as hvd
import keras
import tensorflow as tf


def make_model(width):
    return keras.Sequential([
        keras.Input((32, 32, 3)),
        keras.layers.Rescaling(1.0 / 255),
        keras.layers.Conv2D(width, 3, padding="same", activation="relu"),
        keras.layers.Conv2D(width, 3, padding="same", activation="relu"),
        keras.layers.MaxPooling2D(),
        keras.layers.Conv2D(2 * width, 3, padding="same", activation="relu"),
        keras.layers.GlobalAveragePooling2D(),
        keras.layers.Dense(10),
    ])


def train_trial(lr, batch_size, epochs, width, out_dir):
    """Runs inside every Horovod worker."""
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    (x_train, y_train), (x_test, y_test) = keras.datasets.cifar10.load_data()
    train = (tf.data.Dataset.from_tensor_slices((x_train, y_train))
             .shard(hvd.size(), hvd.rank())
             .shuffle(10000).batch(batch_size).repeat())
    test = (tf.data.Dataset.from_tensor_slices((x_test, y_test))
            .shard(hvd.size(), hvd.rank()).batch(500))

    model = make_model(width)
    opt = keras.optimizers.SGD(learning_rate=lr * hvd.size(), momentum=0.9)
    model.compile(optimizer=hvd.DistributedOptimizer(opt),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])

    callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0),
                 hvd.callbacks.MetricAverageCallback()]
    if hvd.rank() == 0:
        callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(out_dir, "model.keras")))

    history = model.fit(train, steps_per_epoch=len(x_train) // (batch_size * hvd.size()), epochs=epochs,
                        validation_data=test, callbacks=callbacks, verbose=1 if hvd.rank() == 0 else 0)
    return {k: [float(v) for v in vals] for k, vals in history.history.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--num-proc", type=int, default=2)
    ap.add_argument("--hosts", default=None, help="e.g. node1:4,node2:4")
    ap.add_argument("--lrs", type=float, nargs="+", default=[0.01, 0.02, 0.05])
    ap.add_argument("--batch-sizes", type=int, nargs="+", default=[64, 128])
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--width", type=int, default=32)
    ap.add_argument("--out", default="sweeps/" + datetime.now().strftime("%Y%m%d-%H%M%S"))
    args = ap.parse_args()

    hvd.init()
    keras.datasets.cifar10.load_data()  # warm the cache before the workers start

    summary = []
    for lr in args.lrs:
        for bs in args.batch_sizes:
            out_dir = os.path.join(args.out, f"lr{lr}_bs{bs}")
            os.makedirs(out_dir, exist_ok=True)
            per_rank = horovod.run(train_trial, args=(lr, bs, args.epochs, args.width, out_dir),
                                   num_proc=args.num_proc, hosts=args.hosts, use_gloo=True)
            hist = per_rank[0]
            row = {"lr": lr, "batch_size": bs, "num_proc": args.num_proc,
                   "best_val_accuracy": max(hist["val_accuracy"]), "history": hist}
            summary.append(row)
            with open(os.path.join(out_dir, "trial.json"), "w") as f:
                json.dump(row, f, indent=2)
            print(f"lr={lr} bs={bs}: best val_accuracy {row['best_val_accuracy']:.4f}")

    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2)


if __name__ == "__main__":
    main()
