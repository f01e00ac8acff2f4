"""Sentinel-2 land-cover classification (EuroSAT-MS style tiles), Keras + Horovod.

    mpirun -np 8 python train.py                       # uses configs/eurosat_ms.json
    mpirun -np 8 python train.py -c my.json --epochs 5
"""
import argparse
import json

import keras
import horovod.tensorflow.keras as hvd

from landcover.gpu import init_horovod
from landcover.tiles import make_split
from landcover.nets import tiny_resnet
from landcover.callbacks import build_callbacks


def load_config():
    ap = argparse.ArgumentParser()
    ap.add_argument("-c", "--config", default="configs/eurosat_ms.json")
    ap.add_argument("--epochs", type=int)
    ap.add_argument("--batch-size", type=int)
    a = ap.parse_args()
    with open(a.config) as fh:
        cfg = json.load(fh)
    if a.epochs:
        cfg["epochs"] = a.epochs
    if a.batch_size:
        cfg["batch_size"] = a.batch_size
    return cfg


cfg = load_config()
rank, size = init_horovod()

train_ds, train_steps = make_split(cfg, "train", rank, size, training=True)
val_ds, val_steps = make_split(cfg, "val", rank, size, training=False)

model = tiny_resnet(cfg["tile_size"], len(cfg["bands"]), cfg["n_classes"])
lr = cfg["base_lr"] * size
opt = hvd.DistributedOptimizer(keras.optimizers.Adam(learning_rate=lr))
model.compile(optimizer=opt,
              loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
              metrics=["accuracy"])
if rank == 0:
    model.summary()

model.fit(train_ds,
          steps_per_epoch=train_steps,
          validation_data=val_ds,
          validation_steps=val_steps,
          epochs=cfg["epochs"],
          callbacks=build_callbacks(cfg, lr, train_steps),
          verbose=2 if rank == 0 else 0)
