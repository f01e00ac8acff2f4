"""BraTS 2021 2D U-Net (whole tumour / core / enhancing), Keras 3 + Horovod.

    horovodrun -np 8 python train.py -c configs/brats2d.yaml
"""
import argparse
import os

import yaml
import tensorflow as tf
import keras
import horovod.tensorflow.keras as hvd

from lib.callbacks import build_callbacks
from lib.losses import dice, dice_ce_loss
from lib.pipeline import make_dataset
from lib.unet import build_unet

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

ap = argparse.ArgumentParser()
ap.add_argument("-c", "--config", default="configs/brats2d.yaml")
ap.add_argument("--epochs", type=int)
ap.add_argument("--out-dir")
args = ap.parse_args()
with open(args.config) as f:
    cfg = yaml.safe_load(f)
if args.epochs:
    cfg["epochs"] = args.epochs
if args.out_dir:
    cfg["out_dir"] = args.out_dir
if cfg.get("mixed_precision"):
    keras.mixed_precision.set_global_policy("mixed_float16")
if hvd.rank() == 0:
    os.makedirs(cfg["out_dir"], exist_ok=True)
    print(yaml.safe_dump(cfg))

train_ds, n_train = make_dataset(cfg["data_root"], "train", cfg["batch_size"], hvd.size(), hvd.rank(),
                                 size=cfg["image_size"], training=True)
val_ds, n_val = make_dataset(cfg["data_root"], "val", cfg["batch_size"], hvd.size(), hvd.rank(),
                             size=cfg["image_size"])
steps_per_epoch = max(1, n_train // (cfg["batch_size"] * hvd.size()))

model = build_unet((cfg["image_size"], cfg["image_size"], 4), num_classes=4,
                   base_filters=cfg["base_filters"], depth=cfg["depth"])
opt = keras.optimizers.Adam(learning_rate=cfg["lr"] * hvd.size())
opt = hvd.DistributedOptimizer(opt)
model.compile(optimizer=opt, loss=dice_ce_loss, metrics=[dice])

model.fit(train_ds,
          epochs=cfg["epochs"],
          steps_per_epoch=steps_per_epoch,
          validation_data=val_ds,
          callbacks=build_callbacks(cfg, steps_per_epoch),
          verbose=1 if hvd.rank() == 0 else 0)

if hvd.rank() == 0:
    model.save(os.path.join(cfg["out_dir"], "final.keras"))
