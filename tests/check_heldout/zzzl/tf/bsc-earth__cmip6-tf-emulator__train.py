"""
CMIP6 surface-temperature emulator: monthly tas maps from (CO2, CH4, SO2, BC) forcing maps.
Horovod + TF2, gradient accumulation to reach the paper's effective batch.

MareNostrum 5 (Slurm):
    #SBATCH --ntasks=8 --ntasks-per-node=4 --gres=gpu:4 --time=04:00:00
    srun python train.py --cfg exp/ssp_all.yaml
"""
import argparse
import csv
import os

import h5py
import numpy as np
import tensorflow as tf
import yaml
import horovod.tensorflow as hvd

parser = argparse.ArgumentParser()
parser.add_argument("--cfg", type=str, default="exp/ssp_all.yaml")
parser.add_argument("--outdir", type=str, default="runs/cmip6_emu")
parser.add_argument("--restart", action="store_true")
opts = parser.parse_args()

defaults = dict(h5="/gpfs/projects/bsc32/cmip6_emu/train.h5", valid_h5="/gpfs/projects/bsc32/cmip6_emu/valid.h5",
                window=12, horizon=3, batch=8, accum_steps=4, lr=1e-3, epochs=50, width=64)
with open(opts.cfg) as f:
    cfg = {**defaults, **(yaml.safe_load(f) or {})}

hvd.init()
for g in tf.config.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(g, True)
gpus = tf.config.list_physical_devices("GPU")
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def read_h5(path):
    with h5py.File(path, "r") as f:
        forcing = f["forcing"][:].astype(np.float32)   # (T, lat, lon, 4)
        tas = f["tas"][:].astype(np.float32)           # (T, lat, lon)
    return forcing, tas


forcing, tas = read_h5(cfg["h5"])
v_forcing, v_tas = read_h5(cfg["valid_h5"])
f_mean, f_std = forcing.mean(axis=(0, 1, 2)), forcing.std(axis=(0, 1, 2)) + 1e-6
forcing = (forcing - f_mean) / f_std
v_forcing = (v_forcing - f_mean) / f_std
NLAT, NLON = tas.shape[1:]
W, H = cfg["window"], cfg["horizon"]


def windows(fc, tt):
    def gen():
        for t in range(W, len(tt) - H):
            yield fc[t - W:t], tt[t:t + H]
    return tf.data.Dataset.from_generator(
        gen, output_signature=(tf.TensorSpec((W, NLAT, NLON, 4), tf.float32),
                               tf.TensorSpec((H, NLAT, NLON), tf.float32)))


train_ds = (windows(forcing, tas).shard(hvd.size(), hvd.rank())
            .shuffle(512).batch(cfg["batch"], drop_remainder=True).prefetch(2))
valid_ds = windows(v_forcing, v_tas).shard(hvd.size(), hvd.rank()).batch(cfg["batch"])

model = tf.keras.Sequential([
    tf.keras.layers.Input((W, NLAT, NLON, 4)),
    tf.keras.layers.ConvLSTM2D(cfg["width"], 3, padding="same", return_sequences=False),
    tf.keras.layers.Conv2D(cfg["width"], 3, padding="same", activation="relu"),
    tf.keras.layers.Conv2D(H, 1),
])
opt = tf.keras.optimizers.Adam(cfg["lr"] * hvd.size())

coslat = np.cos(np.deg2rad(np.linspace(-89.5, 89.5, NLAT))).astype(np.float32)
lat_w = tf.constant((coslat / coslat.mean())[None, :, None, None])


def wmse(y, p):
    return tf.reduce_mean(lat_w * tf.square(tf.transpose(y, [0, 2, 3, 1]) - p))


ckpt = tf.train.Checkpoint(step=tf.Variable(0, dtype=tf.int64), model=model, optimizer=opt)
mgr = tf.train.CheckpointManager(ckpt, os.path.join(opts.outdir, "ckpt"), max_to_keep=5)
if opts.restart and mgr.latest_checkpoint:
    ckpt.restore(mgr.latest_checkpoint)


@tf.function
def train_step(x, y, first_batch):
    with tf.GradientTape() as tape:
        loss = wmse(y, model(x, training=True))
    tape = hvd.DistributedGradientTape(tape, backward_passes_per_step=cfg["accum_steps"])
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    if first_batch:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(opt.variables, root_rank=0)
    return loss


def evaluate():
    se, n = 0.0, 0
    for x, y in valid_ds:
        p = model(x, training=False)
        se += float(wmse(y, p)) * int(x.shape[0])
        n += int(x.shape[0])
    return np.sqrt(se / max(n, 1))


os.makedirs(opts.outdir, exist_ok=True)
log_path = os.path.join(opts.outdir, "metrics.csv")
step = int(ckpt.step.numpy())
for epoch in range(cfg["epochs"]):
    for i, (x, y) in enumerate(train_ds):
        loss = train_step(x, y, step == 0)
        step += 1
        ckpt.step.assign(step)
        if step % 100 == 0 and hvd.rank() == 0:
            print("epoch %d step %d  wmse %.4f" % (epoch, step, loss), flush=True)
    val_rmse = evaluate()
    mgr.save()
    if hvd.rank() == 0:
        print("epoch %d  valid lat-weighted RMSE %.4f K" % (epoch, val_rmse), flush=True)
        with open(log_path, "a") as f:
            csv.writer(f).writerow([epoch, step, float(loss), val_rmse])
