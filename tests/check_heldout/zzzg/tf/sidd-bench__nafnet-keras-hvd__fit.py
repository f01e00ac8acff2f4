"""NAFNet-width16 on SIDD, keras fit with horovod.  horovodrun -np 4 python fit.py [--config ...]"""
import argparse
import json

import horovod.tensorflow.keras as hvd
import keras

from sidd.callbacks import make_callbacks
from sidd.metrics import PSNRLoss, psnr, ssim
from sidd.network import nafnet
from sidd.pipeline import train_pipeline, val_pipeline

ap = argparse.ArgumentParser()
ap.add_argument("--config", default="configs/sidd_small.json")
ap.add_argument("--epochs", type=int, default=None, help="override the config")
args = ap.parse_args()
with open(args.config) as f:
    cfg = json.load(f)
if args.epochs:
    cfg["epochs"] = args.epochs

hvd.init()
keras.utils.set_random_seed(2024)

train_ds = train_pipeline(cfg, hvd.rank(), hvd.size())
val_ds = val_pipeline(cfg, hvd.rank(), hvd.size())
steps_per_epoch = cfg["train_images"] // (cfg["batch_size"] * hvd.size())

model = nafnet(cfg["width"])
schedule = keras.optimizers.schedules.CosineDecay(cfg["lr"] * hvd.size(), cfg["epochs"] * steps_per_epoch,
                                                  alpha=1e-3)
optimizer = hvd.DistributedOptimizer(keras.optimizers.AdamW(schedule, weight_decay=0.0, beta_2=0.9))
model.compile(optimizer=optimizer, loss=PSNRLoss(), metrics=[psnr, ssim])
model.fit(train_ds, epochs=cfg["epochs"], steps_per_epoch=steps_per_epoch, validation_data=val_ds,
          callbacks=make_callbacks(cfg["out_dir"]), verbose=1 if hvd.rank() == 0 else 0)
