#!/usr/bin/env python
"""HOMO-LUMO gap from SOAP descriptors with a Keras MLP, multi-node via Horovod.

usage: horovodrun -np 8 python fit.py [--config configs/default.json] [key=value ...]
"""
import argparse
import json

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from molnet.callbacks import distributed_callbacks
from molnet.data import partition, read_h5, standardize, to_dataset
from molnet.model import build_mlp


def load_cfg():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/default.json")
    ap.add_argument("overrides", nargs="*", help="key=value, parsed as JSON when possible")
    a = ap.parse_args()
    with open(a.config) as f:
        cfg = json.load(f)
    for kv in a.overrides:
        k, v = kv.split("=", 1)
        try:
            cfg[k] = json.loads(v)
        except json.JSONDecodeError:
            cfg[k] = v
    return cfg


def main():
    cfg = load_cfg()
    hvd.init()
    for gpu in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(gpu, True)
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    x_tr, y_tr = read_h5(cfg["train_h5"], cfg["target"])
    x_va, y_va = read_h5(cfg["val_h5"], cfg["target"])
    x_tr, x_va = standardize(x_tr, x_va)
    mine = partition(len(x_tr), hvd.rank(), hvd.size())
    train_ds = to_dataset(x_tr[mine], y_tr[mine], cfg["batch_size"], training=True)
    val_ds = to_dataset(x_va, y_va, 4 * cfg["batch_size"], training=False)
    steps_per_epoch = len(mine) // cfg["batch_size"]

    model = build_mlp(x_tr.shape[1], cfg["hidden"], cfg["dropout"])
    scaled_lr = cfg["lr"] * hvd.size()
    opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=scaled_lr))
    model.compile(optimizer=opt, loss="huber", metrics=["mae"])

    model.fit(train_ds, epochs=cfg["epochs"], steps_per_epoch=steps_per_epoch,
              validation_data=val_ds, callbacks=distributed_callbacks(cfg, steps_per_epoch, scaled_lr),
              verbose=2 if hvd.rank() == 0 else 0)

    if hvd.rank() == 0:
        loss, mae = model.evaluate(val_ds, verbose=0)
        print(json.dumps({"val_loss": loss, "val_mae": mae, "ranks": hvd.size()}))


if __name__ == "__main__":
    main()
