"""Fraud scoring model - distributed training entry point.

    horovodrun -np 4 python -m fraud.train_keras --config configs/prod.json optimizer.name=adamw
"""
import argparse
import copy
import json
import logging
import os
import time

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

logger = logging.getLogger("fraud.train")

BASE_CONFIG = {
    "data": {"shards": "data/fraud/shards.txt", "features": 64, "batch_size": 1024, "pos_weight": 20.0},
    "optimizer": {"name": "adam", "lr": 2e-4, "warmup_epochs": 2},
    "trainer": {"epochs": 25, "export_dir": "export/fraud", "seed": 7},
}


def merge(base, update):
    out = copy.deepcopy(base)
    for key, val in update.items():
        out[key] = merge(out[key], val) if isinstance(val, dict) and isinstance(out.get(key), dict) else val
    return out


def resolve_config(path, overrides):
    cfg = BASE_CONFIG
    if path and os.path.exists(path):
        with open(path) as fh:
            cfg = merge(cfg, json.load(fh))
    for item in overrides:
        dotted, raw = item.split("=", 1)
        section, key = dotted.split(".")
        cfg[section][key] = json.loads(raw) if raw[:1] in "0123456789[{-" else raw
    # linear scaling rule: the effective batch is batch_size * workers
    cfg["optimizer"]["lr"] = cfg["optimizer"]["lr"] * hvd.size()
    return cfg


OPTIMIZERS = {
    "adam": lambda lr: keras.optimizers.Adam(learning_rate=lr),
    "adamw": lambda lr: keras.optimizers.AdamW(learning_rate=lr, weight_decay=1e-5),
    "sgd": lambda lr: keras.optimizers.SGD(learning_rate=lr, momentum=0.9),
}


def build_optimizer(opt_cfg):
    lr = opt_cfg["lr"] * hvd.size()
    return hvd.DistributedOptimizer(OPTIMIZERS[opt_cfg["name"]](lr)), lr


def with_retries(fn, attempts=3, wait=5.0):
    for i in range(attempts):
        try:
            return fn()
        except OSError as err:
            logger.warning("attempt %d failed: %s", i + 1, err)
            if i == attempts - 1:
                raise
            time.sleep(wait)


def load_shards(list_file, rank, size):
    with open(list_file) as fh:
        paths = [l.strip() for l in fh if l.strip()]
    mine = paths[rank::size]
    arrays = [np.load(p) for p in mine]
    x = np.concatenate([a["x"] for a in arrays]).astype("float32")
    y = np.concatenate([a["y"] for a in arrays]).astype("float32")
    return x, y


class HealthLogger(keras.callbacks.Callback):
    def on_epoch_begin(self, epoch, logs=None):
        self._t = time.time()

    def on_epoch_end(self, epoch, logs=None):
        logs = {k: round(float(v), 5) for k, v in (logs or {}).items()}
        logger.info(json.dumps({"epoch": epoch, "secs": round(time.time() - self._t, 1), **logs}))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/default.json")
    ap.add_argument("overrides", nargs="*")
    args = ap.parse_args()

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.ERROR)

    cfg = resolve_config(args.config, args.overrides)
    keras.utils.set_random_seed(cfg["trainer"]["seed"])
    dcfg = cfg["data"]
    x, y = with_retries(lambda: load_shards(dcfg["shards"], hvd.rank(), hvd.size()))
    rows = hvd.allgather(tf.constant([len(x)], dtype=tf.int64), name="shard_rows")
    n_min = int(tf.reduce_min(rows))
    steps_per_epoch = n_min // dcfg["batch_size"]
    train = (tf.data.Dataset.from_tensor_slices((x, y)).shuffle(50_000).repeat()
             .batch(dcfg["batch_size"], drop_remainder=True).prefetch(tf.data.AUTOTUNE))

    model = keras.Sequential([
        keras.Input((dcfg["features"],)),
        keras.layers.Dense(256, activation="relu"),
        keras.layers.BatchNormalization(),
        keras.layers.Dense(128, activation="relu"),
        keras.layers.Dense(1, activation="sigmoid"),
    ])
    optimizer, lr = build_optimizer(cfg["optimizer"])
    model.compile(optimizer=optimizer, loss="binary_crossentropy",
                  metrics=[keras.metrics.AUC(name="auc"), keras.metrics.Recall(name="recall")])

    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=lr, warmup_epochs=cfg["optimizer"]["warmup_epochs"],
                                                 steps_per_epoch=steps_per_epoch),
    ]
    if hvd.rank() == 0:
        callbacks += [HealthLogger(),
                      keras.callbacks.ModelCheckpoint(os.path.join(cfg["trainer"]["export_dir"], "ckpt.keras"))]

    model.fit(train, steps_per_epoch=steps_per_epoch, epochs=cfg["trainer"]["epochs"],
              class_weight={0: 1.0, 1: dcfg["pos_weight"]}, callbacks=callbacks,
              verbose=2 if hvd.rank() == 0 else 0)


if __name__ == "__main__":
    main()
