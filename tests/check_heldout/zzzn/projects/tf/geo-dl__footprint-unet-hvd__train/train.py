#!/usr/bin/env python
# Building footprint U-Net (WHU aerial), keras 3 + horovod
#   mpirun -np 4 -bind-to none -map-by slot python train.py --data /mnt/data/whu_building/tiles
import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from footprint.settings import get_settings
from footprint import tiles
from footprint.nets import unet_small
from footprint.losses import bce_dice, building_iou
from footprint.callbacks import make_callbacks

cfg = get_settings()
hvd.init()
gpus = tf.config.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

seed = 1000 + hvd.rank()            # different crops/flips per worker
train_ds, n_train = tiles.load(cfg, "train")
val_ds, n_val = tiles.load(cfg, "val")
train_ds = tiles.train_pipeline(train_ds.shard(hvd.size(), hvd.rank()), cfg, seed)
val_ds = val_ds.shard(hvd.size(), hvd.rank()).batch(4)
steps_per_epoch = n_train // (cfg.batch * hvd.size())

keras.utils.set_random_seed(42)
model = unet_small()
lr = cfg.lr * hvd.size()
model.compile(optimizer=keras.optimizers.Adam(lr), loss=bce_dice, metrics=[building_iou()])

callbacks = make_callbacks(cfg, lr, steps_per_epoch)
hist = model.fit(train_ds, epochs=cfg.epochs, steps_per_epoch=steps_per_epoch, validation_data=val_ds,
                 callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)

if hvd.rank() == 0:
    print("best val_iou %.4f" % np.max(hist.history["val_iou"]))
