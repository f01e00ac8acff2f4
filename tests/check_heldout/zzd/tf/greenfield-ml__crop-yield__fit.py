"""County-level crop yield regression from weekly weather + soil features.

    horovodrun -np 4 python fit.py --config config.toml
"""
import argparse
import os

import keras
import horovod.tensorflow.keras as hvd

from yieldkit import hvdsetup
from yieldkit.cfg import load_config
from yieldkit.logger import JsonlLogger
from yieldkit.nets import build_optimizer, yield_net
from yieldkit.pipeline import load_tables, to_dataset


def train(cfg):
    hvdsetup.init()
    tables = load_tables(cfg["data"]["path"], cfg["data"]["val_years"])
    n_train = len(tables["y_train"])
    bs = cfg["train"]["batch_size"]

    train_ds = to_dataset(tables["x_train"], tables["y_train"], bs, training=True,
                          num_shards=hvd.size(), shard_index=hvd.rank())
    val_ds = to_dataset(tables["x_val"], tables["y_val"], 1024, training=False)

    model = yield_net(tables["x_train"].shape[1:], **cfg["model"])
    lr = cfg["train"]["lr"] * hvd.size()
    opt = build_optimizer(cfg["train"]["optimizer"], lr)
    hvd.DistributedOptimizer(opt)  # wrap for horovod
    model.compile(optimizer=opt, loss="huber", metrics=["mae"])

    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
    ]
    if hvd.rank() == 0:
        out = cfg["train"]["out_dir"]
        os.makedirs(out, exist_ok=True)
        callbacks += [
            keras.callbacks.ModelCheckpoint(os.path.join(out, "yield_net.weights.h5"),
                                            save_weights_only=True, monitor="val_mae", save_best_only=True),
            JsonlLogger(os.path.join(out, "history.jsonl")),
        ]

    model.fit(train_ds, epochs=cfg["train"]["epochs"], steps_per_epoch=n_train // (bs * hvd.size()),
              validation_data=val_ds, callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="config.toml")
    train(load_config(ap.parse_args().config))
