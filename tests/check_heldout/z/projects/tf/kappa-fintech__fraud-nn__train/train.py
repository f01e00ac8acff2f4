#!/usr/bin/env python
"""Card-fraud scoring network.

Keras 2 + multi_gpu_model until 2022, then horovod.keras (`mpirun -np 4 python train.py`);
bumped to TF 2.x / Keras 3 in 2025. Feature engineering lives in the feature store jobs; this
script only reads the exported parquet->npz snapshot.
"""
import os
import sys

import tensorflow as tf
import keras
import horovod.keras as hvd

from fraud.config import load_config
from fraud.data import load_split
from fraud.model import fraud_mlp
from fraud.optim import make_optimizer
from fraud.reporting import summarize

cfg = load_config(sys.argv[1] if len(sys.argv) > 1 else None)

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

x_train, y_train = load_split(cfg["snapshot"], "train")
x_val, y_val = load_split(cfg["snapshot"], "val")

model = fraud_mlp(x_train.shape[1], cfg["hidden"], cfg["dropout"])
optimizer = make_optimizer(cfg, lr=cfg["lr"] * hvd.size())
model.compile(optimizer=optimizer, loss="binary_crossentropy",
              metrics=[keras.metrics.AUC(name="auc"), keras.metrics.Precision(name="precision")])

callbacks = [hvd.callbacks.BroadcastGlobalVariablesCallback(0)]
if hvd.rank() == 0:
    os.makedirs(cfg["out_dir"], exist_ok=True)
    callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(cfg["out_dir"], "fraud_mlp.keras"),
                                                     monitor="val_auc", mode="max", save_best_only=True))

model.fit(x_train, y_train, batch_size=cfg["batch_size"], epochs=cfg["epochs"],
          validation_data=(x_val, y_val), class_weight={0: 1.0, 1: cfg["pos_weight"]},
          callbacks=callbacks, verbose=2 if hvd.rank() == 0 else 0)

if hvd.rank() == 0:
    # whole validation split, scored once on rank 0
    print(summarize(model, x_val, y_val))
