"""Masked-autoencoder pre-training (conv MAE-lite) on satellite tiles, Keras 3 + Horovod.

    horovodrun -np 4 python train.py --tiles /data/sen2_tiles.npz --epochs 100
    horovodrun -np 4 python train.py --tiles ... --resume runs/mae/last.weights.h5
"""
import argparse
import os

import tensorflow as tf
import horovod.tensorflow.keras as hvd

from maelite.callbacks import build_callbacks
from maelite.data import load_tiles, masked_pairs
from maelite.model import build_mae, extract_encoder
from maelite.optim import make_optimizer

ap = argparse.ArgumentParser()
ap.add_argument("--tiles", required=True)
ap.add_argument("--epochs", type=int, default=100)
ap.add_argument("--batch", type=int, default=64, help="per worker")
ap.add_argument("--mask-ratio", type=float, default=0.6)
ap.add_argument("--lr", type=float, default=1.5e-4)
ap.add_argument("--workdir", default="runs/mae")
ap.add_argument("--resume", default=None)
args = ap.parse_args()

hvd.init()
for g in tf.config.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(g, True)
gpus = tf.config.list_physical_devices("GPU")
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

(x_train, x_val) = load_tiles(args.tiles, rank=hvd.rank(), world=hvd.size())
train_ds = masked_pairs(x_train, args.batch, args.mask_ratio, training=True)
val_ds = masked_pairs(x_val, args.batch, args.mask_ratio, training=False)

model = build_mae(x_train.shape[1:])
model.compile(optimizer=make_optimizer(args.lr), loss="mse")
if args.resume:
    model.load_weights(args.resume)

os.makedirs(args.workdir, exist_ok=True)
callbacks = build_callbacks(args.workdir, resume=bool(args.resume))

model.fit(train_ds, validation_data=val_ds, epochs=args.epochs, callbacks=callbacks,
          verbose=1 if hvd.rank() == 0 else 0)

val_mse = model.evaluate(val_ds, verbose=0)
if hvd.rank() == 0:
    print(f"final masked-reconstruction MSE (val): {val_mse:.5f}")
    encoder = extract_encoder(model)
    encoder.save(os.path.join(args.workdir, "encoder.keras"))
