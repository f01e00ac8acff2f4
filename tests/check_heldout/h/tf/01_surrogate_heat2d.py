#!/usr/bin/env python
"""MLP surrogate for the 2-D transient heat solver (FEniCS runs, see ../sim/).

prep_shards.py has already split the ~400k simulations into one HDF5 file per
worker (shard_0000.h5, shard_0001.h5, ...) with the same number of samples in
each, plus valid.h5 (held-out runs) and stats.npz (global mean/std).

    srun -N 2 --ntasks-per-node=4 python 01_surrogate_heat2d.py --data $SCRATCH/heat2d/shards
"""
import os
import time
import argparse

# one GPU per process; must happen before tensorflow is imported
_local_rank = os.environ.get("SLURM_LOCALID", os.environ.get("OMPI_COMM_WORLD_LOCAL_RANK", "0"))
os.environ["CUDA_VISIBLE_DEVICES"] = _local_rank
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import h5py
import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

hvd.init()

p = argparse.ArgumentParser()
p.add_argument("--data", default="/scratch/heat2d/shards")
p.add_argument("--epochs", type=int, default=150)
p.add_argument("--bs", type=int, default=256)
p.add_argument("--lr", type=float, default=5e-4)
p.add_argument("--width", type=int, default=512)
p.add_argument("--depth", type=int, default=6)
p.add_argument("--warmup_epochs", type=int, default=5)
p.add_argument("--ckpt_dir", default="./ckpt_surrogate")
args = p.parse_args()


def load_h5(path):
    with h5py.File(path, "r") as f:
        x = f["params"][...].astype(np.float32)   # (n, 7): conductivity, source, 4 BCs, t
        y = f["fields"][...].astype(np.float32)   # (n, 4096): 64x64 temperature field
    return x, y


stats = np.load(os.path.join(args.data, "stats.npz"))
x_mu, x_sd = stats["x_mean"], stats["x_std"]
y_mu, y_sd = stats["y_mean"], stats["y_std"]

x_tr, y_tr = load_h5(os.path.join(args.data, "shard_%04d.h5" % hvd.rank()))
x_va, y_va = load_h5(os.path.join(args.data, "valid.h5"))   # small, every rank reads all of it
x_tr, x_va = (x_tr - x_mu) / x_sd, (x_va - x_mu) / x_sd
y_tr, y_va = (y_tr - y_mu) / y_sd, (y_va - y_mu) / y_sd

# shards are meant to be equal, but take the smallest count so no rank waits in allreduce
local_steps = len(x_tr) // args.bs
steps_per_epoch = int(hvd.allreduce(tf.constant(local_steps), op=hvd.Min))

train_ds = (tf.data.Dataset.from_tensor_slices((x_tr, y_tr))
            .shuffle(len(x_tr), reshuffle_each_iteration=True)
            .batch(args.bs, drop_remainder=True)
            .take(steps_per_epoch)
            .prefetch(tf.data.AUTOTUNE))
val_ds = tf.data.Dataset.from_tensor_slices((x_va, y_va)).batch(1024)


def make_mlp(width, depth, n_out):
    inp = tf.keras.Input(shape=(7,))
    h = inp
    for _ in range(depth):
        h = tf.keras.layers.Dense(width, activation="swish")(h)
    out = tf.keras.layers.Dense(n_out)(h)
    return tf.keras.Model(inp, out, name="heat_surrogate")


class WarmupCosine(tf.keras.optimizers.schedules.LearningRateSchedule):
    def __init__(self, peak, warmup_steps, total_steps):
        self.peak = peak
        self.warmup_steps = float(warmup_steps)
        self.total_steps = float(total_steps)

    def __call__(self, step):
        step = tf.cast(step, tf.float32)
        warm = self.peak * (step + 1.0) / self.warmup_steps
        frac = (step - self.warmup_steps) / max(1.0, self.total_steps - self.warmup_steps)
        cos = 0.5 * self.peak * (1.0 + tf.cos(np.pi * tf.minimum(frac, 1.0)))
        return tf.where(step < self.warmup_steps, warm, cos)


model = make_mlp(args.width, args.depth, y_tr.shape[1])
peak_lr = args.lr * hvd.size()     # bigger global batch -> bigger step
schedule = WarmupCosine(peak_lr, args.warmup_epochs * steps_per_epoch, args.epochs * steps_per_epoch)
opt = tf.keras.optimizers.Adam(learning_rate=schedule)

ckpt = tf.train.Checkpoint(model=model, opt=opt, epoch=tf.Variable(0, dtype=tf.int64))
manager = tf.train.CheckpointManager(ckpt, args.ckpt_dir, max_to_keep=3)
if manager.latest_checkpoint:
    # every rank restores the same files; the broadcast below makes it exact anyway
    ckpt.restore(manager.latest_checkpoint)
start_epoch = int(ckpt.epoch.numpy())


@tf.function
def train_step(xb, yb, first_batch):
    with tf.GradientTape() as tape:
        pred = model(xb, training=True)
        loss = tf.reduce_mean(tf.square(pred - yb))
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    if first_batch:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(opt.variables, root_rank=0)
    return loss


@tf.function
def eval_step(xb, yb):
    pred = model(xb, training=False)
    se = tf.reduce_sum(tf.square(pred - yb), axis=1)
    rel = tf.norm(pred - yb, axis=1) / (tf.norm(yb, axis=1) + 1e-8)
    return tf.reduce_sum(se), tf.reduce_sum(rel)


first = True
for epoch in range(start_epoch, args.epochs):
    t0 = time.time()
    tot = 0.0
    for xb, yb in train_ds:
        tot += float(train_step(xb, yb, first))
        first = False
    train_mse = hvd.allreduce(tf.constant(tot / steps_per_epoch), name="train_mse")

    se_sum, rel_sum = 0.0, 0.0
    for xb, yb in val_ds:
        a, b = eval_step(xb, yb)
        se_sum += float(a)
        rel_sum += float(b)
    val_mse = se_sum / (len(x_va) * y_va.shape[1])
    val_rel = rel_sum / len(x_va)

    ckpt.epoch.assign(epoch + 1)
    if hvd.rank() == 0:
        print(f"epoch {epoch:4d}  train_mse {float(train_mse):.5f}  val_mse {val_mse:.5f}  "
              f"val_relL2 {val_rel:.4f}  lr {float(schedule(opt.iterations)):.2e}  {time.time() - t0:.1f}s",
              flush=True)
        if (epoch + 1) % 10 == 0 or epoch + 1 == args.epochs:
            manager.save(checkpoint_number=epoch + 1)

if hvd.rank() == 0:
    model.save(os.path.join(args.ckpt_dir, "surrogate_final.keras"))
