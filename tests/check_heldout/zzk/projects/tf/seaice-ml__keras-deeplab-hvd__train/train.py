"""Sea-ice type segmentation from Sentinel-1 SAR tiles: DeepLab-lite, Keras 3 + Horovod.

    horovodrun -np 4 python train.py                       # defaults from seaice.config.Config
    horovodrun -np 4 python train.py --config cfg/big.json --resume
"""
import argparse
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from seaice.callbacks import build_callbacks
from seaice.config import Config
from seaice.data import load_arrays, standardize, train_dataset, val_dataset
from seaice.model import deeplab_lite

hvd.init()

gpus = tf.config.experimental.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default=None)
    parser.add_argument("--resume", action="store_true")
    args = parser.parse_args()
    cfg = Config.from_json(args.config) if args.config else Config()
    if cfg.global_batch % hvd.size():
        raise SystemExit(f"global batch {cfg.global_batch} is not divisible by {hvd.size()} workers")
    per_worker = cfg.global_batch // hvd.size()

    x_tr, y_tr, x_va, y_va = load_arrays(cfg.data_path)
    mean, std = x_tr.mean(axis=(0, 1, 2)), x_tr.std(axis=(0, 1, 2))
    x_tr, x_va = standardize(x_tr, mean, std), standardize(x_va, mean, std)

    train_ds = train_dataset(x_tr, y_tr, per_worker, hvd.size(), hvd.rank())
    val_ds = val_dataset(x_va, y_va, per_worker, hvd.size(), hvd.rank())
    steps_per_epoch = len(x_tr) // cfg.global_batch

    model = deeplab_lite(cfg.tile, x_tr.shape[-1], cfg.num_classes)
    initial_epoch = 0
    marker = os.path.join(cfg.out_dir, "last_epoch.txt")
    if args.resume and os.path.exists(marker):
        model.load_weights(os.path.join(cfg.out_dir, "last.weights.h5"))
        with open(marker) as f:
            initial_epoch = int(f.read())

    optimizer = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=cfg.lr))
    model.compile(
        optimizer=optimizer,
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=[keras.metrics.SparseCategoricalAccuracy(name="acc")],
    )
    if hvd.rank() == 0:
        model.summary()
        os.makedirs(cfg.out_dir, exist_ok=True)
        cfg.dump(os.path.join(cfg.out_dir, "config.json"))

    model.fit(
        train_ds,
        steps_per_epoch=steps_per_epoch,
        epochs=cfg.epochs,
        initial_epoch=initial_epoch,
        validation_data=val_ds,
        callbacks=build_callbacks(cfg, steps_per_epoch, cfg.lr),
        verbose=1 if hvd.rank() == 0 else 0,
    )


if __name__ == "__main__":
    main()
