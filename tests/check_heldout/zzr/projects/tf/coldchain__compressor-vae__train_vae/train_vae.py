#!/usr/bin/env python
# Compressor VAE for cold-chain refrigeration units -- TF2 + Horovod (GradientTape)
import argparse
import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

from utils.data import make_dataset, read_units, standardize
from utils.early_stopping import EarlyStopping
from vae.model import VAE
from vae.trainer import VAETrainer

p = argparse.ArgumentParser()
p.add_argument("--data-dir", default="./data/units")
p.add_argument("--model-dir", default="./models/vae")
p.add_argument("--batch", type=int, default=128)
p.add_argument("--lr", type=float, default=1e-3)
p.add_argument("--beta", type=float, default=0.5)
p.add_argument("--epochs", type=int, default=200)
p.add_argument("--patience", type=int, default=10)
p.add_argument("--val-frac", type=float, default=0.15)
args = p.parse_args()

hvd.init()
for gpu in tf.config.experimental.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(gpu, True)
gpus = tf.config.experimental.list_physical_devices("GPU")
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

units = read_units(args.data_dir)
x = np.concatenate(units)
n_val = int(len(x) * args.val_frac)
x_train, x_val = standardize(x[:-n_val], x[-n_val:])
train_ds = make_dataset(x_train, args.batch, shard=(hvd.size(), hvd.rank()), shuffle=True)
val_ds = make_dataset(x_val, 1024, shard=(hvd.size(), hvd.rank()))

model = VAE(x_train.shape[1])
opt = tf.keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
trainer = VAETrainer(model, opt, beta=args.beta)
stopper = EarlyStopping(patience=args.patience)
ckpt = tf.train.Checkpoint(model=model, optimizer=opt)

first = True
for epoch in range(args.epochs):
    for step, xb in enumerate(train_ds):
        loss = trainer.train_step(xb, first)
        first = False
    val_loss, _ = trainer.evaluate(val_ds)
    improved, stop = stopper.step(val_loss)
    if hvd.rank() == 0:
        print(f"epoch {epoch:3d}  train {loss.numpy():.4f}  val {val_loss:.4f}", flush=True)
        if improved:
            ckpt.write(os.path.join(args.model_dir, "best"))
    if stop:
        break

# anomaly threshold: 99th percentile of training reconstruction error (rank 0 owns the full set)
if hvd.rank() == 0:
    _, train_err = trainer.evaluate(make_dataset(x_train, 1024))
    thr = float(np.percentile(train_err, 99))
    np.save(os.path.join(args.model_dir, "threshold.npy"), np.array([thr]))
    print("threshold", thr)
