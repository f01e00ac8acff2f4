"""Nuclei segmentation (U-Net) -- multi-GPU training with Horovod.

    horovodrun -np 4 python train.py
    horovodrun -np 4 python train.py --epochs 80 --batch-size 8
"""
import argparse
import dataclasses
import os

import keras
import horovod.tensorflow.keras as hvd

from unet.config import TrainConfig
from unet.data import load_split
from unet.hvd_utils import init_horovod, is_root
from unet.model import build_unet, dice_coef


def parse_cli():
    cfg = TrainConfig()
    ap = argparse.ArgumentParser()
    for f in dataclasses.fields(cfg):
        ap.add_argument("--" + f.name.replace("_", "-"), type=type(getattr(cfg, f.name)),
                        default=getattr(cfg, f.name))
    return TrainConfig(**vars(ap.parse_args()))


def main():
    init_horovod()
    cfg = parse_cli()

    train_ds, n_train = load_split(cfg, "train", shard=True)
    val_ds, _ = load_split(cfg, "val", shard=True)
    steps = n_train // (cfg.batch_size * hvd.size())

    model = build_unet(cfg.image_size, base=cfg.base_filters)
    opt = keras.optimizers.Adam(learning_rate=cfg.lr)
    model.compile(optimizer=hvd.DistributedOptimizer(opt),
                  loss="binary_crossentropy",
                  metrics=[dice_coef, keras.metrics.BinaryIoU(name="iou")])

    callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0)]
    if is_root():
        os.makedirs(cfg.out_dir, exist_ok=True)
        callbacks += [
            keras.callbacks.ModelCheckpoint(os.path.join(cfg.out_dir, "best.keras"),
                                            monitor="val_dice_coef", mode="max",
                                            save_best_only=True),
            keras.callbacks.CSVLogger(os.path.join(cfg.out_dir, "log.csv")),
        ]

    model.fit(train_ds, validation_data=val_ds, epochs=cfg.epochs, steps_per_epoch=steps,
              callbacks=callbacks, verbose=2 if is_root() else 0)

    scores = model.evaluate(val_ds, verbose=0, return_dict=True)
    if is_root():
        print("final validation:", {k: round(float(v), 4) for k, v in scores.items()})


if __name__ == "__main__":
    main()
