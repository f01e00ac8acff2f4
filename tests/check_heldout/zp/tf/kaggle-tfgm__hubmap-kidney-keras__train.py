"""HuBMAP kidney FTU segmentation - U-Net, Keras 3 + horovod.tensorflow.keras.

    horovodrun -np 4 python train.py --tiles data/tiles256 --fold 0
"""
import argparse
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from hubseg.data import load_tiles, group_kfold, make_dataset
from hubseg.model import unet, bce_dice, dice_coef
from hubseg.callbacks import make_callbacks
from hubseg.rle import write_submission

parser = argparse.ArgumentParser()
parser.add_argument("--tiles", default="data/tiles256")
parser.add_argument("--test-tiles", default="data/test_tiles256")
parser.add_argument("--out", default="models/unet_b16")
parser.add_argument("--fold", type=int, default=0)
parser.add_argument("--epochs", type=int, default=40)
parser.add_argument("--batch-size", type=int, default=16)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--threshold", type=float, default=0.4)
args = parser.parse_args()

hvd.init()
gpus = tf.config.experimental.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")
verbose = 2 if hvd.rank() == 0 else 0

x, y, groups = load_tiles(args.tiles)
folds = group_kfold(groups)
tr, va = folds != args.fold, folds == args.fold
train_ds = make_dataset(x[tr], y[tr], args.batch_size, hvd.size(), hvd.rank(), training=True)
valid_ds = make_dataset(x[va], y[va], args.batch_size, hvd.size(), hvd.rank(), training=False)
steps = int(tr.sum()) // (args.batch_size * hvd.size())
val_steps = max(1, int(va.sum()) // (args.batch_size * hvd.size()))
if hvd.rank() == 0:
    print(f"fold {args.fold}: {tr.sum()} train / {va.sum()} valid tiles, {steps} steps per epoch per worker")

model = unet()
scaled_lr = args.lr * hvd.size()
opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=scaled_lr))
model.compile(optimizer=opt, loss=bce_dice, metrics=[dice_coef])

model.fit(
    train_ds,
    steps_per_epoch=steps,
    epochs=args.epochs,
    validation_data=valid_ds,
    validation_steps=val_steps,
    callbacks=make_callbacks(args.out, args.fold, scaled_lr, verbose=verbose),
    verbose=verbose,
)

# test-time augmentation (identity + 2 flips) and submission, on the chief only
if hvd.rank() == 0 and os.path.isdir(args.test_tiles):
    xt, _, test_ids = load_tiles(args.test_tiles)
    xt = xt.astype("float32") / 255.0
    p = model.predict(xt, batch_size=32, verbose=0)
    p += model.predict(xt[:, :, ::-1], batch_size=32, verbose=0)[:, :, ::-1]
    p += model.predict(xt[:, ::-1], batch_size=32, verbose=0)[:, ::-1]
    masks = (p[..., 0] / 3.0) > args.threshold
    ids = [f"{g}_{k}" for k, g in enumerate(test_ids)]
    write_submission(os.path.join(args.out, f"submission_fold{args.fold}.csv"), ids, masks)
    np.save(os.path.join(args.out, f"test_probs_fold{args.fold}.npy"), p[..., 0] / 3.0)
