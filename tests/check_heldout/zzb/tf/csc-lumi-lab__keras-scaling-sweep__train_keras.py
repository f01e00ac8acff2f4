#!/usr/bin/env python3
"""Keras + Horovod scaling sweep on LUMI / Puhti.

sbatch --nodes=$N sweep.sh   ->   srun python3 train_keras.py --config configs/fmnist.json --ranks-tag $SLURM_NTASKS
"""
import argparse
import json
import os
import time

import tensorflow as tf
import horovod.tensorflow.keras as hvd

from sweep.config import SweepConfig
from sweep.data import load_fashion, make_train_ds, make_eval_ds
from sweep.optim import make_optimizer
from sweep.callbacks import build_callbacks
from sweep.env import configure_threads, job_summary, log_rank0


def build_model(cfg):
    return tf.keras.Sequential([
        tf.keras.Input(shape=(28, 28, 1)),
        tf.keras.layers.Conv2D(cfg.filters, 3, activation="relu"),
        tf.keras.layers.Conv2D(cfg.filters * 2, 3, activation="relu"),
        tf.keras.layers.MaxPooling2D(),
        tf.keras.layers.Dropout(0.25),
        tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(cfg.dense, activation="relu"),
        tf.keras.layers.Dropout(0.5),
        tf.keras.layers.Dense(10, activation="softmax"),
    ])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/fmnist.json")
    ap.add_argument("--ranks-tag", default=None)
    args = ap.parse_args()

    hvd.init()
    threads = configure_threads()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    cfg = SweepConfig.load(args.config)
    tag = args.ranks_tag or str(hvd.size())
    out_dir = os.path.join(cfg.out_root, f"n{tag}")
    job = job_summary()
    log_rank0(f"job {job['job_id']}: {job['ranks']} ranks ({job['ranks_per_node']}/node), "
              f"{threads} threads per rank")

    (x, y), (xv, yv) = load_fashion(cfg.data_dir)
    train_ds, steps = make_train_ds(x, y, cfg.batch_size, seed=cfg.seed)
    val_ds = make_eval_ds(xv, yv, cfg.batch_size)

    model = build_model(cfg)
    model.compile(optimizer=make_optimizer(cfg),
                  loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])

    callbacks = build_callbacks(cfg, out_dir, hvd.rank())
    t0 = time.time()
    history = model.fit(train_ds, steps_per_epoch=steps, epochs=cfg.epochs,
                        validation_data=val_ds, callbacks=callbacks,
                        verbose=2 if hvd.rank() == 0 else 0)
    wall = time.time() - t0

    if hvd.rank() == 0:
        with open(os.path.join(out_dir, "result.json"), "w") as fh:
            json.dump({"ranks": hvd.size(), "wall_s": wall,
                       "val_accuracy": float(history.history["val_accuracy"][-1]),
                       "job": job, "config": cfg.__dict__}, fh, indent=1)


if __name__ == "__main__":
    main()
