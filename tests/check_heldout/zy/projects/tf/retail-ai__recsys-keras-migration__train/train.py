#!/usr/bin/env python
# NeuMF on the click logs, Horovod + tf.keras -> Keras 3 migration (REC-412).
import json
import os
import sys

import keras
import horovod.tensorflow.keras as hvd
import tensorflow as tf

from recsys.callbacks import build_callbacks
from recsys.data import make_dataset
from recsys.model import neumf

DEFAULTS = {
    "train": "data/clicks_train.npz",
    "valid": "data/clicks_valid.npz",
    "num_users": 138_493,
    "num_items": 26_744,
    "batch_size": 2048,
    "lr": 1e-3,
    "epochs": 20,
    "warmup_epochs": 2,
    "out_dir": "runs/neumf",
}


def load_cfg():
    cfg = dict(DEFAULTS)
    if len(sys.argv) > 1:
        with open(sys.argv[1]) as f:
            cfg.update(json.load(f))
    return cfg


def main():
    cfg = load_cfg()
    hvd.init()

    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    os.makedirs(cfg["out_dir"], exist_ok=True)
    train_ds, n_train = make_dataset(cfg["train"], cfg["batch_size"], hvd.size(), hvd.rank())
    valid_ds, n_valid = make_dataset(cfg["valid"], cfg["batch_size"], hvd.size(), hvd.rank(), shuffle=False)

    model = neumf(cfg["num_users"], cfg["num_items"])
    scaled_lr = cfg["lr"] * hvd.size()
    opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=scaled_lr), sparse_as_dense=True)
    model.compile(optimizer=opt, loss="binary_crossentropy",
                  metrics=[keras.metrics.AUC(name="auc"), keras.metrics.BinaryAccuracy(name="acc")])

    model.fit(train_ds.repeat(),
              steps_per_epoch=n_train // cfg["batch_size"],
              validation_data=valid_ds.repeat(),
              validation_steps=max(1, n_valid // cfg["batch_size"]),
              epochs=cfg["epochs"],
              callbacks=build_callbacks(cfg, scaled_lr),
              verbose=2 if hvd.rank() == 0 else 0)


if __name__ == "__main__":
    main()
