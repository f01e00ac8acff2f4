#!/usr/bin/env python
"""Train the plankton CNN on N workers.

    horovodrun -np 4 python train.py --config configs/base.json
"""
import argparse
import os

import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from plankton.config import TrainConfig
from plankton.data import load_split, make_dataset, steps_for
from plankton.models import build_model
from plankton.callbacks import EpochTimer


def parse_args():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--config", default="configs/base.json")
    p.add_argument("--epochs", type=int, default=None, help="override config epochs")
    return p.parse_args()


def main():
    args = parse_args()
    hvd.init()

    gpus = tf.config.experimental.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    cfg = TrainConfig.from_json(args.config)
    if args.epochs is not None:
        cfg.epochs = args.epochs
    is_chief = hvd.rank() == 0
    if is_chief:
        os.makedirs(cfg.out_dir, exist_ok=True)
        cfg.dump(os.path.join(cfg.out_dir, "config.json"))

    x_tr, y_tr = load_split(cfg.data_dir, "train")
    x_va, y_va = load_split(cfg.data_dir, "val")
    train_ds = make_dataset(x_tr, y_tr, cfg.batch_size, hvd.rank(), hvd.size(), True, cfg.seed)
    val_ds = make_dataset(x_va, y_va, cfg.batch_size, hvd.rank(), hvd.size(), False, cfg.seed)
    steps_per_epoch = steps_for(len(x_tr), cfg.batch_size, hvd.size())
    validation_steps = steps_for(len(x_va), cfg.batch_size, hvd.size())

    model = build_model(cfg)
    scaled_lr = cfg.base_lr * hvd.size()
    opt = keras.optimizers.Adam(learning_rate=scaled_lr)
    opt = hvd.DistributedOptimizer(opt)
    model.compile(
        optimizer=opt,
        loss=keras.losses.SparseCategoricalCrossentropy(),
        metrics=["accuracy"],
    )

    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(
            initial_lr=scaled_lr, warmup_epochs=cfg.warmup_epochs,
            steps_per_epoch=steps_per_epoch, verbose=int(is_chief)),
        keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=4, min_lr=1e-6),
    ]
    if is_chief:
        callbacks += [
            keras.callbacks.ModelCheckpoint(os.path.join(cfg.out_dir, "best.keras"),
                                            monitor="val_accuracy", save_best_only=True),
            keras.callbacks.CSVLogger(os.path.join(cfg.out_dir, "history.csv")),
            EpochTimer(os.path.join(cfg.out_dir, "epochs.jsonl")),
        ]

    model.fit(
        train_ds,
        epochs=cfg.epochs,
        steps_per_epoch=steps_per_epoch,
        validation_data=val_ds,
        validation_steps=validation_steps,
        callbacks=callbacks,
        verbose=2 if is_chief else 0,
    )


if __name__ == "__main__":
    main()
