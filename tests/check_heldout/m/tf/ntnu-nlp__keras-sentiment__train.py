"""Binary sentiment classification (TextCNN) with Keras fit and Horovod.

    horovodrun -np 4 python train.py               # settings from config.json
    horovodrun -np 4 python train.py --epochs 3
"""
import argparse
import os

import keras
import horovod.tensorflow.keras as hvd

from sentiment.data import load_split, to_dataset
from sentiment.model import text_cnn
from sentiment.runtime import is_chief, load_config, setup


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="config.json")
    ap.add_argument("--epochs", type=int, default=None)
    ap.add_argument("--lr", type=float, default=None)
    cli = ap.parse_args()
    cfg = load_config(cli.config, epochs=cli.epochs, lr=cli.lr)
    setup(cfg)

    tr_ids, tr_y = load_split(cfg["data"], "train", cfg["max_len"])
    va_ids, va_y = load_split(cfg["data"], "valid", cfg["max_len"])
    train_ds = to_dataset(tr_ids, tr_y, cfg["batch_size"], hvd.size(), hvd.rank(), train=True)
    val_ds = to_dataset(va_ids, va_y, cfg["batch_size"], hvd.size(), hvd.rank(), train=False)
    steps = len(tr_ids) // (cfg["batch_size"] * hvd.size())

    model = text_cnn(cfg["vocab_size"], cfg["max_len"], cfg["embed_dim"], cfg["filters"], cfg["n_filters"],
                     cfg["dropout"])
    opt = keras.optimizers.Adam(learning_rate=cfg["lr"] * hvd.size())
    model.compile(optimizer=hvd.DistributedOptimizer(opt), loss="binary_crossentropy",
                  metrics=[keras.metrics.BinaryAccuracy(name="acc")])

    callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0), hvd.callbacks.MetricAverageCallback()]
    if is_chief():
        callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(cfg["out_dir"], "best.weights.h5"),
                                                         monitor="val_acc", mode="max",
                                                         save_best_only=True, save_weights_only=True))
    model.fit(train_ds, steps_per_epoch=steps, epochs=cfg["epochs"], validation_data=val_ds,
              callbacks=callbacks, verbose=2 if is_chief() else 0)


if __name__ == "__main__":
    main()
