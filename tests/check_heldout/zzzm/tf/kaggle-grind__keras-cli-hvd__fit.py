#!/usr/bin/env python
# Tabular binary classifier for the playground series, multi-GPU with horovod.
#   horovodrun -np 4 python fit.py --csv data/train.csv --epochs 20
import os

import click
import numpy as np
import pandas as pd
import tensorflow as tf
import horovod.tensorflow.keras as hvd


def load_frame(csv, target, n_fake=20000, n_feat=24):
    if csv and os.path.exists(csv):
        df = pd.read_csv(csv)
        y = df.pop(target).values.astype("float32")
        x = df.select_dtypes("number").fillna(0).values.astype("float32")
    else:
        rng = np.random.default_rng(0)
        x = rng.normal(size=(n_fake, n_feat)).astype("float32")
        y = (x[:, 0] + 0.5 * x[:, 1] > 0).astype("float32")
    mu, sd = x.mean(0), x.std(0) + 1e-6
    return (x - mu) / sd, y


def make_model(n_feat, hidden, dropout):
    inp = tf.keras.Input((n_feat,))
    h = inp
    for units in hidden:
        h = tf.keras.layers.Dense(units, activation="swish")(h)
        h = tf.keras.layers.Dropout(dropout)(h)
    out = tf.keras.layers.Dense(1, activation="sigmoid")(h)
    return tf.keras.Model(inp, out)


@click.command()
@click.option("--csv", default="data/train.csv", show_default=True)
@click.option("--target", default="target")
@click.option("--epochs", default=20, show_default=True)
@click.option("--batch-size", default=512, show_default=True)
@click.option("--learning-rate", "lr", default=1e-3, show_default=True)
@click.option("--hidden", default="256,128", help="comma separated layer sizes")
@click.option("--dropout", default=0.2)
@click.option("--val-frac", default=0.1)
@click.option("--out", default="models", show_default=True)
def main(csv, target, epochs, batch_size, lr, hidden, dropout, val_frac, out):
    hvd.init()
    for gpu in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(gpu, True)

    x, y = load_frame(csv, target)
    n_val = int(len(x) * val_frac)
    x_val, y_val, x_tr, y_tr = x[:n_val], y[:n_val], x[n_val:], y[n_val:]

    train = (tf.data.Dataset.from_tensor_slices((x_tr, y_tr))
             .shard(hvd.size(), hvd.rank())
             .shuffle(8192).repeat().batch(batch_size))
    val = (tf.data.Dataset.from_tensor_slices((x_val, y_val))
           .shard(hvd.size(), hvd.rank()).batch(batch_size))
    steps = len(x_tr) // (batch_size * hvd.size())

    model = make_model(x.shape[1], [int(h) for h in hidden.split(",")], dropout)
    opt = hvd.DistributedOptimizer(tf.keras.optimizers.Adam(learning_rate=lr))
    model.compile(opt, loss="binary_crossentropy",
                  metrics=[tf.keras.metrics.AUC(name="auc"), "accuracy"])

    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(root_rank=0),
        hvd.callbacks.MetricAverageCallback(),
        tf.keras.callbacks.ReduceLROnPlateau(monitor="val_auc", mode="max", patience=3),
    ]
    if hvd.rank() == 0:
        os.makedirs(out, exist_ok=True)
        callbacks.append(tf.keras.callbacks.ModelCheckpoint(
            os.path.join(out, "best.keras"), monitor="val_auc", mode="max", save_best_only=True))

    model.fit(train, steps_per_epoch=steps, epochs=epochs, validation_data=val,
              callbacks=callbacks, verbose=1 if hvd.rank() == 0 else 0)


if __name__ == "__main__":
    main()
