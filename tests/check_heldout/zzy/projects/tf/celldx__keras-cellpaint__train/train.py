#!/usr/bin/env python
"""Mechanism-of-action classifier on Cell Painting crops (5 channels), held-out plates.

Config: configs/default.yaml (override with --set train.epochs=5 ...).
Launch: horovodrun -np 4 python train.py
"""
import argparse
import math

import yaml
import keras
import horovod.tensorflow.keras as hvd

from cellpaint import config as config_lib
from cellpaint.callbacks import make_callbacks
from cellpaint.data import class_weight_from_counts, load_arrays, make_dataset
from cellpaint.hvd_setup import setup
from cellpaint.model import build


def parse_overrides(pairs):
    out = {}
    for pair in pairs or []:
        key, value = pair.split("=", 1)
        node = out
        *parents, leaf = key.split(".")
        for p in parents:
            node = node.setdefault(p, {})
        node[leaf] = yaml.safe_load(value)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default=config_lib.DEFAULT_PATH)
    ap.add_argument("--set", nargs="*", metavar="KEY=VALUE")
    args = ap.parse_args()

    is_chief = setup()
    cfg = config_lib.load(args.config, parse_overrides(args.set))

    (x_tr, y_tr), (x_va, y_va) = load_arrays(cfg["data"]["path"], cfg["data"]["val_plates"])
    n_classes = int(max(y_tr.max(), y_va.max()) + 1)
    bs = cfg["train"]["batch_size"]
    train_ds, n_local = make_dataset(x_tr, y_tr, bs, training=True)
    val_ds, n_val_local = make_dataset(x_va, y_va, bs, training=False)
    steps = max(1, n_local // bs)
    val_steps = max(1, math.ceil(n_val_local / bs))

    model = build(x_tr.shape[1:], n_classes, cfg["model"]["width"], cfg["model"]["dropout"])
    lr = cfg["train"]["base_lr"] * hvd.size()
    opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=lr))
    model.compile(optimizer=opt, loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    if is_chief:
        model.summary()

    model.fit(train_ds, steps_per_epoch=steps, epochs=cfg["train"]["epochs"],
              validation_data=val_ds, validation_steps=val_steps,
              class_weight=class_weight_from_counts(y_tr, n_classes),
              callbacks=make_callbacks(cfg, lr, steps, is_chief),
              verbose=2 if is_chief else 0)


if __name__ == "__main__":
    main()
