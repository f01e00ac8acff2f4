#!/usr/bin/env python3
"""Train DnCNN-S (blind sigma in [0, 55]) with Keras + Horovod.

horovodrun -np 4 python train.py --train data/bsd400_patches.npy --val data/bsd68_patches.npy
"""
import argparse
import json

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from denoise.dncnn import dncnn, psnr
from denoise.data import load_patches, noisy_pairs
from denoise.optim import build_optimizer
from denoise.callbacks import default_callbacks

CONFIG = {
    "depth": 17, "filters": 64, "batch_size": 128, "epochs": 50, "warmup_epochs": 2,
    "base_lr": 1e-3, "optimizer": "adam", "clipnorm": None, "sigma": [0.0, 55.0],
    "out_dir": "checkpoints/dncnn_s", "mixed_precision": False, "seed": 0,
}


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", default="data/bsd400_patches.npy")
    ap.add_argument("--val", default="data/bsd68_patches.npy")
    ap.add_argument("--config", help="json file overriding CONFIG")
    ap.add_argument("--epochs", type=int)
    ap.add_argument("--batch-size", type=int)
    ap.add_argument("--steps-per-epoch", type=int)
    ap.add_argument("--mixed-precision", action="store_true")
    return ap.parse_args()


def main():
    args = parse()
    cfg = dict(CONFIG)
    if args.config:
        with open(args.config) as f:
            cfg.update(json.load(f))
    for k in ("epochs", "batch_size"):
        if getattr(args, k) is not None:
            cfg[k] = getattr(args, k)
    cfg["mixed_precision"] = cfg["mixed_precision"] or args.mixed_precision

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    if cfg["mixed_precision"]:
        keras.mixed_precision.set_global_policy("mixed_float16")
    keras.utils.set_random_seed(cfg["seed"] + hvd.rank())  # different noise draws on every worker

    train = load_patches(args.train)
    val = load_patches(args.val)
    train_ds = noisy_pairs(train, cfg["batch_size"], cfg["sigma"], shard=(hvd.size(), hvd.rank()),
                           seed=cfg["seed"] + hvd.rank())
    val_ds = noisy_pairs(val, cfg["batch_size"], cfg["sigma"], shard=(hvd.size(), hvd.rank()), training=False)
    steps = args.steps_per_epoch or int(np.ceil(len(train) / (cfg["batch_size"] * hvd.size())))

    cfg["lr"] = cfg["base_lr"] * hvd.size()    # linear scaling with the number of workers
    model = dncnn(cfg["depth"], cfg["filters"], channels=train.shape[-1])
    opt = hvd.DistributedOptimizer(build_optimizer(cfg))
    model.compile(optimizer=opt, loss="mse", metrics=[psnr])

    callbacks = default_callbacks(cfg, steps)
    model.fit(train_ds, steps_per_epoch=steps, epochs=cfg["epochs"], validation_data=val_ds,
              callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)
    if hvd.rank() == 0:
        model.save_weights(f"{cfg['out_dir']}/final.weights.h5")


if __name__ == "__main__":
    main()
