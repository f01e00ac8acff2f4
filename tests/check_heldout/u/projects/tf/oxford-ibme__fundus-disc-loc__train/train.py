#!/usr/bin/env python
"""Optic disc localisation on REFUGE fundus images (tape loop, Horovod).

    horovodrun -np 4 python train.py --config configs/refuge.yaml
"""
import argparse
import os

import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from fundus.config import load_config
from fundus.data import load_arrays, to_dataset
from fundus.env import setup_gpu
from fundus.model import disc_regressor
from fundus.step import distance_sum, make_train_step

ap = argparse.ArgumentParser()
ap.add_argument("--config", default=None)
ap.add_argument("--set", nargs="*", default=[], help="key=value")
args = ap.parse_args()
cfg = load_config(args.config, args.set)

hvd.init()
setup_gpu(cfg)

(x_tr, c_tr), (x_va, c_va) = load_arrays(cfg["data"])
train_ds = to_dataset(x_tr, c_tr, cfg["batch_size"], hvd.rank(), hvd.size(), True, cfg["image_size"])
val_ds = to_dataset(x_va, c_va, cfg["batch_size"], hvd.rank(), hvd.size(), False, cfg["image_size"])
steps_per_epoch = len(x_tr) // (cfg["batch_size"] * hvd.size())

model = disc_regressor(cfg["image_size"])
lr = cfg["lr"] * hvd.size()
optimizer = keras.optimizers.Adam(learning_rate=lr)
train_step = make_train_step(model, optimizer)

ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer)
if hvd.rank() == 0:
    os.makedirs(cfg["ckpt_dir"], exist_ok=True)

best = float("inf")
it = iter(train_ds)
for epoch in range(cfg["epochs"]):
    for step in range(steps_per_epoch):
        x, c = next(it)
        loss = train_step(x, c)
        if epoch == 0 and step == 0:
            # optimizer slots exist after the first update
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(optimizer.variables, root_rank=0)
        if hvd.rank() == 0 and step % cfg["log_every"] == 0:
            print(f"epoch {epoch} step {step}/{steps_per_epoch} L1 {float(loss):.4f}")

    tot, n = 0.0, 0.0
    for x, c in val_ds:
        s, k = distance_sum(model, x, c, float(cfg["image_size"]))
        tot, n = tot + float(s), n + float(k)
    tot = hvd.allreduce(tf.constant(tot), op=hvd.Sum, name="dist_sum")
    n = hvd.allreduce(tf.constant(n), op=hvd.Sum, name="dist_n")
    mean_dist = float(tot / n)
    if hvd.rank() == 0:
        print(f"epoch {epoch}: mean disc-centre error {mean_dist:.2f} px")
        if mean_dist < best:
            best = mean_dist
            ckpt.write(os.path.join(cfg["ckpt_dir"], "best"))
