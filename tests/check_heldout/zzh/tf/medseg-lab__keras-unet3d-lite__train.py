#!/usr/bin/env python
"""3D U-Net (lite) on pre-extracted 32^3 BraTS patches, horovod.tensorflow.keras."""
import argparse
import json
import os

import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from unet3d import config as C
from unet3d.callbacks import make_callbacks
from unet3d.data import patch_dataset
from unet3d.losses import dice_ce_loss, dice_metric
from unet3d.model import unet3d


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", default=C.DATA_DIR)
    ap.add_argument("--out-dir", default=C.OUT_DIR)
    ap.add_argument("--epochs", type=int, default=C.EPOCHS)
    ap.add_argument("--batch-size", type=int, default=C.BATCH_SIZE)
    ap.add_argument("--lr", type=float, default=C.LEARNING_RATE)
    ap.add_argument("--warmup-epochs", type=int, default=3)
    return ap.parse_args()


def main():
    args = parse_args()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    train_ds, n_train = patch_dataset(args.data_dir, "train", args.batch_size, hvd.size(), hvd.rank(), True)
    val_ds, _ = patch_dataset(args.data_dir, "val", args.batch_size, hvd.size(), hvd.rank(), False)
    steps_per_epoch = max(1, n_train // (args.batch_size * hvd.size()))

    lr = args.lr * hvd.size()
    model = unet3d(C.PATCH, C.IN_CHANNELS, C.NUM_CLASSES, C.BASE_FILTERS)
    opt = hvd.DistributedOptimizer(keras.optimizers.Adam(lr), compression=hvd.Compression.fp16)
    model.compile(optimizer=opt, loss=dice_ce_loss, metrics=[dice_metric])

    history = model.fit(train_ds, steps_per_epoch=steps_per_epoch, epochs=args.epochs,
                        validation_data=val_ds,
                        callbacks=make_callbacks(args.out_dir, lr, args.warmup_epochs, steps_per_epoch),
                        verbose=1 if hvd.rank() == 0 else 0)

    if hvd.rank() == 0:
        best = max(history.history["val_dice"])
        print(f"best validation dice: {best:.4f}")
        with open(os.path.join(args.out_dir, "summary.json"), "w") as fh:
            json.dump({"best_val_dice": best, "workers": hvd.size(), "lr": lr}, fh, indent=2)


if __name__ == "__main__":
    main()
