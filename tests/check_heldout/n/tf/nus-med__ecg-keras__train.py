"""Multi-label ECG classification (PTB-XL superclasses), 1-D ResNet, Keras + Horovod.

    mpirun -np 4 -H gpu-a:2,gpu-b:2 python train.py --config configs/ptbxl.json
"""
import argparse
import json
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.keras as hvd

from ecg import build_resnet1d, make_optimizer
from ecg.data import load_split, rank_slice, standardize

parser = argparse.ArgumentParser()
parser.add_argument("--config", default="configs/ptbxl.json")
parser.add_argument("--epochs", type=int, default=None)
parser.add_argument("--verbose", type=int, default=2)
args = parser.parse_args()
with open(args.config) as f:
    cfg = json.load(f)
if args.epochs:
    cfg["epochs"] = args.epochs

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

x_train, y_train = load_split(cfg["data_path"], "train", cfg["classes"])
x_val, y_val = load_split(cfg["data_path"], "val", cfg["classes"])
x_train, mean, std = standardize(x_train)
x_val, _, _ = standardize(x_val, mean, std)
x_train, y_train = rank_slice(x_train, y_train, hvd.rank(), hvd.size())
x_val, y_val = rank_slice(x_val, y_val, hvd.rank(), hvd.size())

model = build_resnet1d(x_train.shape[1], x_train.shape[2], len(cfg["classes"]),
                       cfg["filters"], cfg["blocks"], cfg["dropout"])
optimizer = make_optimizer(cfg)
dist_optimizer = hvd.DistributedOptimizer(optimizer)
model.compile(optimizer=optimizer, loss="binary_crossentropy",
              metrics=[keras.metrics.BinaryAccuracy(name="acc")])

callbacks = [
    hvd.callbacks.BroadcastGlobalVariablesCallback(0),
    hvd.callbacks.MetricAverageCallback(),
    hvd.callbacks.LearningRateWarmupCallback(initial_lr=float(optimizer.learning_rate),
                                             warmup_epochs=cfg["warmup_epochs"], verbose=0),
    keras.callbacks.EarlyStopping(monitor="val_loss", patience=cfg["early_stop_patience"],
                                  restore_best_weights=True),
]
if hvd.rank() == 0:
    os.makedirs(cfg["out_dir"], exist_ok=True)
    callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(cfg["out_dir"], "best.keras"),
                                                     monitor="val_loss", save_best_only=True))

model.fit(x_train, y_train, batch_size=cfg["batch_size"], epochs=cfg["epochs"],
          validation_data=(x_val, y_val), callbacks=callbacks,
          verbose=args.verbose if hvd.rank() == 0 else 0)

if hvd.rank() == 0:
    np.savez(os.path.join(cfg["out_dir"], "norm.npz"), mean=mean, std=std)
