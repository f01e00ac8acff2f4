#!/usr/bin/env python
"""Building-footprint segmentation (Inria aerial tiles) with a Keras U-Net and Horovod.

    horovodrun -np 4 -H localhost:4 python train.py --data /scratch/inria_tiles
"""
import argparse
import math

import keras
import horovod.tensorflow.keras as hvd

from segkit.callbacks import build_callbacks
from segkit.data import make_dataset
from segkit.gpu import pin_gpu
from segkit.losses import dice_bce
from segkit.model import build_unet


def get_cfg():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="/scratch/inria_tiles")
    ap.add_argument("--size", type=int, default=256)
    ap.add_argument("--batch", type=int, default=8, help="tiles per GPU")
    ap.add_argument("--epochs", type=int, default=80)
    ap.add_argument("--lr", type=float, default=2e-4)
    ap.add_argument("--warmup-epochs", type=int, default=3)
    ap.add_argument("--out-dir", default="out/unet")
    ap.add_argument("--resume", default="", help="weights file (.weights.h5) to start from")
    return vars(ap.parse_args())


def main():
    cfg = get_cfg()
    hvd.init()
    dev = pin_gpu()
    if hvd.rank() == 0:
        print(f"horovod size {hvd.size()}, rank 0 on {dev}")

    train_ds, n_train = make_dataset(cfg["data"], "train", cfg["batch"], cfg["size"], hvd.size(), hvd.rank(), True)
    val_ds, n_val = make_dataset(cfg["data"], "val", cfg["batch"], cfg["size"], hvd.size(), hvd.rank(), False)
    steps = math.ceil(n_train / (cfg["batch"] * hvd.size()))

    lr = cfg["lr"] * hvd.size()
    model = build_unet(cfg["size"])
    opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=lr))
    model.compile(optimizer=opt, loss=dice_bce, metrics=["binary_accuracy"])
    if cfg["resume"] and hvd.rank() == 0:
        model.load_weights(cfg["resume"])
        print(f"restored weights from {cfg['resume']}")

    model.fit(train_ds, steps_per_epoch=steps, epochs=cfg["epochs"], validation_data=val_ds,
              callbacks=build_callbacks(cfg, lr), verbose=2 if hvd.rank() == 0 else 0)
    if hvd.rank() == 0:
        model.save(f"{cfg['out_dir']}/unet-final.keras")


if __name__ == "__main__":
    main()
