#!/usr/bin/env python
"""ERA5 t2m downscaling U-Net, custom GradientTape loop with Horovod.

Derecho:  mpiexec -n 16 --ppn 4 --cpu-bind depth -d 16 python train.py -c configs/default.yaml
"""
import argparse
import time

import keras
import tensorflow as tf
import horovod.tensorflow as hvd

from downscale import config as config_lib
from downscale import hvd_utils
from downscale.data import make_dataset
from downscale.model import build_unet

parser = argparse.ArgumentParser()
parser.add_argument("-c", "--config", default="configs/default.yaml")
parser.add_argument("--epochs", type=int)
args = parser.parse_args()
cfg = config_lib.load(args.config)
if args.epochs:
    cfg.epochs = args.epochs

rank, size = hvd_utils.init_and_pin()
if cfg.mixed_precision:
    keras.mixed_precision.set_global_policy("mixed_float16")

train_ds, train_steps = make_dataset(cfg.train_file, cfg.batch_per_gpu, rank, size, training=True)
val_ds, val_steps = make_dataset(cfg.val_file, cfg.batch_per_gpu, rank, size, training=False)

model = build_unet(cfg.upscale)
opt = keras.optimizers.Adam(learning_rate=hvd_utils.scaled_lr(cfg.base_lr))
if cfg.mixed_precision:
    opt = keras.mixed_precision.LossScaleOptimizer(opt)
loss_fn = keras.losses.MeanSquaredError()


@tf.function
def train_step(coarse, fine):
    with tf.GradientTape() as tape:
        pred = model(coarse, training=True)
        loss = loss_fn(fine, pred)
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    return loss


@tf.function
def val_step(coarse, fine):
    return loss_fn(fine, model(coarse, training=False))


synced = False
for epoch in range(cfg.epochs):
    t0 = time.time()
    train_loss = 0.0
    for coarse, fine in train_ds:
        loss = train_step(coarse, fine)
        if not synced:
            hvd_utils.sync_initial_state(model, opt)
            synced = True
        train_loss += float(loss)
    val_loss = 0.0
    for coarse, fine in val_ds:
        val_loss += float(val_step(coarse, fine))
    # every rank has val_steps equal batches, so the mean of the rank means is the global mean
    train_loss = hvd_utils.mean_over_ranks(train_loss / max(train_steps, 1), "train_loss")
    val_loss = hvd_utils.mean_over_ranks(val_loss / max(val_steps, 1), "val_loss")
    if rank == 0:
        print(f"epoch {epoch + 1}/{cfg.epochs} train_mse={train_loss:.4f} val_mse={val_loss:.4f} "
              f"rmse_K={val_loss ** 0.5:.3f} [{time.time() - t0:.0f}s]", flush=True)
    if (epoch + 1) % 5 == 0 or epoch + 1 == cfg.epochs:
        hvd_utils.save_on_root(model, cfg.out_dir, epoch + 1)
