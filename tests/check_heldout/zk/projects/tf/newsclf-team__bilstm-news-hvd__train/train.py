"""AG News topic classification (BiLSTM + attention pooling), Keras 3 + Horovod.

    horovodrun -np 8 -H node1:4,node2:4 python train.py --set epochs=8 batch_size=256
"""
import argparse
import json

import keras
import horovod.tensorflow.keras as hvd

from news.runtime import setup, log0
from news.data import load_agnews, build_pipeline
from news.model import bilstm_attention
from news.callbacks import make_callbacks

CONFIG = {
    "train_csv": "data/ag_news/train.csv",
    "test_csv": "data/ag_news/test.csv",
    "vocab_size": 50000,
    "seq_len": 96,
    "batch_size": 128,
    "epochs": 6,
    "lr": 1e-3,
    "warmup_epochs": 2,
    "ckpt_dir": "runs/agnews",
}


def parse_overrides():
    ap = argparse.ArgumentParser()
    ap.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE")
    cfg = dict(CONFIG)
    for item in ap.parse_args().set:
        key, value = item.split("=", 1)
        cfg[key] = type(CONFIG[key])(value)
    return cfg


def main():
    cfg = parse_overrides()
    setup()
    log0("config: " + json.dumps(cfg))

    (train_x, train_y), (test_x, test_y) = load_agnews(cfg["train_csv"], cfg["test_csv"])
    train_ds, test_ds, vectorizer = build_pipeline(train_x, train_y, test_x, test_y, cfg)
    steps = len(train_x) // (cfg["batch_size"] * hvd.size())
    val_steps = len(test_x) // (cfg["batch_size"] * hvd.size())

    model = bilstm_attention(cfg["vocab_size"], cfg["seq_len"], n_classes=4)
    lr = cfg["lr"] * hvd.size()
    model.compile(optimizer=hvd.DistributedOptimizer(keras.optimizers.Adam(lr)),
                  loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    model.fit(train_ds, epochs=cfg["epochs"], steps_per_epoch=steps,
              validation_data=test_ds, validation_steps=val_steps,
              callbacks=make_callbacks(cfg, steps), verbose=2 if hvd.rank() == 0 else 0)


if __name__ == "__main__":
    main()
