"""Sepsis risk model on the tabular cohort (Keras 3 fit + Horovod).

    horovodrun -np 4 -H gpu01:4 python main.py --conf conf/default.yaml train.epochs=40
"""
import argparse
import copy
import os

import horovod.tensorflow.keras as hvd
import keras
import tensorflow as tf
import yaml

from risk import MODELS, OPTIMIZERS
from risk.data import load_cohort, train_val_split, worker_shard


def merge_cli(conf, dotted):
    conf = copy.deepcopy(conf)
    for item in dotted:
        key, val = item.split("=", 1)
        sec, name = key.split(".")
        conf[sec][name] = yaml.safe_load(val)
    return conf


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--conf", default="conf/default.yaml")
    parser.add_argument("overrides", nargs="*")
    args = parser.parse_args()
    with open(args.conf) as f:
        conf = merge_cli(yaml.safe_load(f), args.overrides)

    hvd.init()
    for gpu in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(gpu, True)
    keras.utils.set_random_seed(42 + hvd.rank())  # decorrelate dropout noise across workers

    x, y = load_cohort(conf["data"]["cohort"])
    (xtr, ytr), (xva, yva) = train_val_split(x, y, conf["data"]["val_frac"])
    xtr, ytr = worker_shard(xtr, ytr, hvd.rank(), hvd.size())

    model = MODELS.create(conf["model"], n_features=x.shape[1])
    optimizer = OPTIMIZERS.create(conf["optimizer"])
    model.compile(optimizer=optimizer, loss="binary_crossentropy",
                  metrics=[keras.metrics.AUC(name="auroc"), keras.metrics.AUC(curve="PR", name="auprc")])

    out = conf["train"]["out"]
    callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0), hvd.callbacks.MetricAverageCallback(),
                 keras.callbacks.EarlyStopping(monitor="val_auroc", mode="max", patience=5)]
    if hvd.rank() == 0:
        os.makedirs(out, exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(out, "best.weights.h5"),
                                                         monitor="val_auroc", mode="max",
                                                         save_best_only=True, save_weights_only=True))
    model.fit(xtr, ytr, batch_size=conf["train"]["batch_size"], epochs=conf["train"]["epochs"],
              validation_data=(xva, yva), callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)


if __name__ == "__main__":
    main()
