"""Land-cover segmentation of 4-band satellite tiles.

Usage: horovodrun -np 4 python train_fit.py --data_dir /scratch/tiles --out runs/unet
"""
import argparse
import os

import keras

from geoseg.distribute import HvdStrategy
from geoseg.data import make_dataset, count_tiles
from geoseg.model import SegModel, tiny_unet
from geoseg.callbacks import build_callbacks

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--data_dir", default="data/tiles")
parser.add_argument("--out", default="runs/unet")
parser.add_argument("--batch_per_replica", type=int, default=16)
parser.add_argument("--base_lr", type=float, default=2e-4)
parser.add_argument("--epochs", type=int, default=40)
parser.add_argument("--classes", type=int, default=6)
args = parser.parse_args()

strategy = HvdStrategy()
ctx = strategy.input_context()
n_workers = strategy.num_replicas_in_sync

train_ds = make_dataset(args.data_dir, "train", args.batch_per_replica, ctx, augment=True)
val_ds = make_dataset(args.data_dir, "val", args.batch_per_replica, ctx)
global_batch = args.batch_per_replica * n_workers
steps_per_epoch = count_tiles(args.data_dir, "train") // global_batch

with strategy.scope():
    model = SegModel(tiny_unet(args.classes))
    model.compile(optimizer=keras.optimizers.Adam(args.base_lr * n_workers))

os.makedirs(args.out, exist_ok=True)
model.fit(
    train_ds,
    epochs=args.epochs,
    steps_per_epoch=steps_per_epoch,
    validation_data=val_ds,
    callbacks=build_callbacks(args.out, strategy.worker_index == 0),
    verbose=2 if strategy.worker_index == 0 else 0,
)
