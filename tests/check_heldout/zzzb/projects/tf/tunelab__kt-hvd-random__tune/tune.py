#!/usr/bin/env python3
"""Random search over a small CNN space on Fashion-MNIST, every trial trained with Horovod.

horovodrun -np 4 python tune.py --trials 12 --epochs 8
"""
import argparse
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from tunelab import SearchSpace
from tunelab.builders import build_model
from tunelab.data import load_fashion
from tunelab.hvd_callbacks import trial_callbacks
from tunelab.results import ResultsWriter


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--trials", type=int, default=12)
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--batch-size", type=int, default=128, help="per worker")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--out-dir", default="tuning")
    return parser.parse_args()


def run_trial(trial, train, val, args):
    keras.backend.clear_session()
    model = build_model(trial.hp)
    scaled_lr = trial.hp["lr"] * hvd.size()
    opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=scaled_lr))
    model.compile(optimizer=opt, loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    history = model.fit(
        train[0], train[1],
        batch_size=args.batch_size,
        epochs=args.epochs,
        validation_data=val,
        callbacks=trial_callbacks(trial, args.out_dir, initial_lr=scaled_lr,
                                  steps_per_epoch=int(np.ceil(len(train[0]) / args.batch_size))),
        verbose=2 if hvd.rank() == 0 else 0,
    )
    return float(max(history.history["val_accuracy"]))


def main():
    args = parse_args()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    train, val = load_fashion(hvd.rank(), hvd.size())
    trials = SearchSpace().sample(args.trials, seed=args.seed)

    for trial in trials:
        trial.score = run_trial(trial, train, val, args)
        trial.status = "done"
        if hvd.rank() == 0:
            print(f"trial {trial.trial_id}: {trial.hp} -> val_accuracy {trial.score:.4f}")

    if hvd.rank() == 0:
        writer = ResultsWriter(args.out_dir)
        writer.write(trials)
        print(writer.summary(trials))


if __name__ == "__main__":
    main()
