"""Siamese one-shot verification (Koch et al. 2015) with a contrastive loss, Keras + Horovod.

Usage: horovodrun -np 4 -H localhost:4 python train.py [--config configs/default.json]
"""
import argparse
import json
import os

import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from siamese_tf import build_siamese, contrastive_loss, pair_accuracy
from siamese_tf.optim import build_optimizer
from siamese_tf.pairs import make_pairs


def load_config():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default=os.path.join(os.path.dirname(__file__), "configs", "default.json"))
    ap.add_argument("--epochs", type=int)
    args = ap.parse_args()
    with open(args.config) as f:
        cfg = json.load(f)
    if args.epochs:
        cfg["epochs"] = args.epochs
    return cfg


def main():
    cfg = load_config()
    hvd.init()
    for gpu in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(gpu, True)
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    import numpy as np
    blob = np.load(cfg["data"])
    (xl, xr), same = make_pairs(blob["x_train"], blob["y_train"], cfg["train_pairs"], seed=0)
    (vl, vr), vsame = make_pairs(blob["x_val"], blob["y_val"], cfg["val_pairs"], seed=1)

    train_ds = (tf.data.Dataset.from_tensor_slices(((xl, xr), same))
                .shuffle(10_000)
                .shard(hvd.size(), hvd.rank())
                .batch(cfg["batch_size"], drop_remainder=True)
                .repeat()
                .prefetch(tf.data.AUTOTUNE))
    steps = len(same) // (cfg["batch_size"] * hvd.size())

    model = build_siamese(xl.shape[1:], cfg["embedding"])
    model.compile(optimizer=build_optimizer(cfg), loss=contrastive_loss(cfg["margin"]),
                  metrics=[pair_accuracy(cfg["margin"] / 2)])

    callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0), hvd.callbacks.MetricAverageCallback()]
    if hvd.rank() == 0:
        os.makedirs(cfg["save_dir"], exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(cfg["save_dir"], "best.keras"),
                                                         monitor="val_pair_acc", mode="max", save_best_only=True))
    model.fit(train_ds, steps_per_epoch=steps, epochs=cfg["epochs"],
              validation_data=((vl, vr), vsame), validation_batch_size=256,
              callbacks=callbacks, verbose=1 if hvd.rank() == 0 else 0)


if __name__ == "__main__":
    main()
