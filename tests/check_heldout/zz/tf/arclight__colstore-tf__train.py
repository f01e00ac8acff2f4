"""Churn model on the columnar feature store.

Config is a JSON file; CLI flags override it.
    horovodrun -np 8 python train.py --config configs/churn.json
"""
import argparse
import itertools
import json
import os

import horovod.tensorflow as hvd
import keras
import tensorflow as tf

from colstore import ColumnStore
from colstore import dist
from colstore.dataset import group_dataset, split_groups
from colstore.steps import AccumulatingStep

DEFAULTS = {
    "train_root": "store/train",
    "valid_root": "store/valid",
    "features": ["tenure", "monthly_spend", "support_calls", "logins_30d", "discount"],
    "label": "churned",
    "micro_batch": 256,
    "accum": 4,
    "lr": 1e-3,
    "epochs": 10,
    "out_dir": "out/churn",
}


def load_config():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config")
    ap.add_argument("--epochs", type=int)
    ap.add_argument("--lr", type=float)
    ns = ap.parse_args()
    cfg = dict(DEFAULTS)
    if ns.config:
        with open(ns.config) as f:
            cfg.update(json.load(f))
    cfg.update({k: v for k, v in vars(ns).items() if v is not None and k != "config"})
    return cfg


def main():
    cfg = load_config()
    rank, size = dist.init()

    train_store, valid_store = ColumnStore(cfg["train_root"]), ColumnStore(cfg["valid_root"])
    my_train = split_groups(train_store, rank, size)
    my_valid = split_groups(valid_store, rank, size)
    train_ds = group_dataset(train_store, my_train, cfg["features"], cfg["label"],
                             cfg["micro_batch"], shuffle=True, seed=rank)
    valid_ds = group_dataset(valid_store, my_valid, cfg["features"], cfg["label"],
                             1024, shuffle=False)
    updates_per_epoch = train_store.num_rows() // (cfg["micro_batch"] * cfg["accum"] * size)

    model = keras.Sequential([keras.Input((len(cfg["features"]),)),
                              keras.layers.Dense(128, activation="relu"),
                              keras.layers.Dense(64, activation="relu"),
                              keras.layers.Dense(2)])
    opt = keras.optimizers.Adam(cfg["lr"] * size)
    opt.build(model.trainable_variables)
    dist.sync_initial_state(model, opt)
    step = AccumulatingStep(model, opt,
                            keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                            accum=cfg["accum"])

    ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
    it = iter(train_ds)
    for epoch in range(cfg["epochs"]):
        for u in range(updates_per_epoch):
            loss = step(itertools.islice(it, cfg["accum"]))
            if rank == 0 and u % 50 == 0:
                print(f"epoch {epoch} update {u}/{updates_per_epoch} loss {loss:.4f}")

        correct, count = 0.0, 0
        for x, y in valid_ds:
            pred = tf.argmax(model(x, training=False), axis=1, output_type=tf.int32)
            correct += float(tf.reduce_sum(tf.cast(pred == y, tf.float32)))
            count += int(y.shape[0])
        acc = float(hvd.allreduce(tf.constant(correct), op=hvd.Sum, name="val_correct")) / max(count, 1)
        if rank == 0:
            print(f"epoch {epoch}: val_acc {acc:.4f}")
            ckpt.write(os.path.join(cfg["out_dir"], f"epoch-{epoch:02d}"))


if __name__ == "__main__":
    main()
