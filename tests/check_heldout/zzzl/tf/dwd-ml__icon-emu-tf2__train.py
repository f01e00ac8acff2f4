# ICON-like global emulator on a regular 1 deg grid, TF2 custom loop + Horovod.
#
#   Levante (Slurm):
#     #SBATCH --nodes=2 --ntasks-per-node=4 --gpus-per-task=1 --time=08:00:00
#     srun python train.py --config configs/icon_1deg.yaml
import argparse
import os
import time

import numpy as np
import yaml
import tensorflow as tf
import keras
import horovod.tensorflow as hvd

DEFAULTS = {
    "data": {"file": "/work/bb1153/icon_1deg/fields.npy", "n_train": 40000, "n_valid": 2000},
    "model": {"filters": 96, "blocks": 6},
    "optim": {"lr": 3.0e-4, "batch_size": 4, "epochs": 25, "rollout": 3},
    "io": {"ckpt_dir": "ckpt", "max_to_keep": 3},
}


def deep_update(d, u):
    for k, v in u.items():
        if isinstance(v, dict) and isinstance(d.get(k), dict):
            deep_update(d[k], v)
        else:
            d[k] = v
    return d


ap = argparse.ArgumentParser()
ap.add_argument("--config", default=None)
ap.add_argument("--steps-per-epoch", type=int, default=0, help="0 = full pass over this rank's shard")
args = ap.parse_args()
cfg = DEFAULTS
if args.config:
    with open(args.config) as fh:
        deep_update(cfg, yaml.safe_load(fh))

hvd.init()
gpus = tf.config.experimental.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

# ----------------------------------------------------------------------------- data
fields = np.load(cfg["data"]["file"], mmap_mode="r")          # (T, C, lat, lon)
T, C, NLAT, NLON = fields.shape
K = cfg["optim"]["rollout"]
n_train, n_valid = cfg["data"]["n_train"], cfg["data"]["n_valid"]

# climatological mean/std per channel, same subsample on every rank -> identical numbers
_sub = np.asarray(fields[0:n_train:max(1, n_train // 200)], dtype=np.float64)
MEAN = _sub.mean(axis=(0, 2, 3)).astype(np.float32)[:, None, None]
STD = (_sub.std(axis=(0, 2, 3)) + 1e-6).astype(np.float32)[:, None, None]
del _sub


def _load(t):
    t = int(t)
    seq = (np.asarray(fields[t:t + K + 1], dtype=np.float32) - MEAN) / STD
    return np.transpose(seq, (0, 2, 3, 1))                      # (K+1, lat, lon, C)


def make_ds(t0, t1, training):
    n = ((t1 - K - t0) // hvd.size()) * hvd.size()   # equal shards -> equal step counts on all ranks
    ds = tf.data.Dataset.range(t0, t0 + n)
    ds = ds.shard(num_shards=hvd.size(), index=hvd.rank())
    if training:
        ds = ds.shuffle(4096, seed=hvd.rank(), reshuffle_each_iteration=True)
    ds = ds.map(lambda t: tf.numpy_function(_load, [t], tf.float32), num_parallel_calls=4)
    ds = ds.map(lambda s: tf.ensure_shape(s, [K + 1, NLAT, NLON, C]))
    return ds.batch(cfg["optim"]["batch_size"], drop_remainder=True).prefetch(2)


train_ds = make_ds(0, n_train, True)
valid_ds = make_ds(n_train, n_train + n_valid, False)

# ----------------------------------------------------------------------------- model
def build_model():
    f = cfg["model"]["filters"]
    x_in = keras.Input((NLAT, NLON, C))
    h = keras.layers.Conv2D(f, 3, padding="same", activation="gelu")(x_in)
    for _ in range(cfg["model"]["blocks"]):
        r = keras.layers.Conv2D(f, 3, padding="same", activation="gelu")(h)
        r = keras.layers.Conv2D(f, 3, padding="same")(r)
        h = keras.layers.Add()([h, r])
    dx = keras.layers.Conv2D(C, 1)(h)
    return keras.Model(x_in, keras.layers.Add()([x_in, dx]))


model = build_model()
lr = cfg["optim"]["lr"] * hvd.size()
opt = keras.optimizers.Adam(learning_rate=lr)

lat = np.linspace(90, -90, NLAT)
W_LAT = np.cos(np.deg2rad(lat))
W_LAT = tf.constant((W_LAT / W_LAT.mean()).reshape(1, NLAT, 1, 1), tf.float32)

ckpt = tf.train.Checkpoint(model=model, optimizer=opt, epoch=tf.Variable(0, dtype=tf.int64))
manager = tf.train.CheckpointManager(ckpt, cfg["io"]["ckpt_dir"], max_to_keep=cfg["io"]["max_to_keep"])
if manager.latest_checkpoint:
    ckpt.restore(manager.latest_checkpoint)
    if hvd.rank() == 0:
        print("restored", manager.latest_checkpoint, flush=True)
start_epoch = int(ckpt.epoch.numpy())


def rollout_loss(seq, training):
    x = seq[:, 0]
    loss = 0.0
    for k in range(1, K + 1):
        x = model(x, training=training)
        loss += tf.reduce_mean(W_LAT * tf.square(x - seq[:, k]))
    return loss / K, x


@tf.function
def train_step(seq, first_batch):
    with tf.GradientTape() as tape:
        loss, _ = rollout_loss(seq, True)
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    if first_batch:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(opt.variables, root_rank=0)
    return loss


@tf.function
def valid_sums(seq):
    _, x = rollout_loss(seq, False)
    y = seq[:, -1]
    sq = tf.reduce_sum(tf.reduce_mean(W_LAT * tf.square(x - y), axis=[1, 2]), axis=0)   # (C,)
    num = tf.reduce_sum(tf.reduce_mean(W_LAT * x * y, axis=[1, 2]), axis=0)
    dx = tf.reduce_sum(tf.reduce_mean(W_LAT * x * x, axis=[1, 2]), axis=0)
    dy = tf.reduce_sum(tf.reduce_mean(W_LAT * y * y, axis=[1, 2]), axis=0)
    n = tf.cast(tf.shape(x)[0], tf.float32)
    return tf.stack([sq, num, dx, dy]), n


first = True
for epoch in range(start_epoch, cfg["optim"]["epochs"]):
    t0 = time.time()
    for step, seq in enumerate(train_ds):
        loss = train_step(seq, first)
        first = False
        if args.steps_per_epoch and step + 1 >= args.steps_per_epoch:
            break
    acc_sums = tf.zeros([4, C])
    count = tf.zeros([])
    for seq in valid_ds:
        s, n = valid_sums(seq)
        acc_sums += s
        count += n
    acc_sums = hvd.allreduce(acc_sums, op=hvd.Sum, name="valid_sums")
    count = hvd.allreduce(count, op=hvd.Sum, name="valid_count")
    rmse = tf.sqrt(acc_sums[0] / count).numpy()
    acc = (acc_sums[1] / tf.sqrt(acc_sums[2] * acc_sums[3])).numpy()
    ckpt.epoch.assign(epoch + 1)
    if hvd.rank() == 0:
        print("epoch %d  loss %.4f  %.0fs" % (epoch, float(loss), time.time() - t0))
        print("  RMSE[norm] %s" % np.array2string(rmse, precision=3))
        print("  ACC        %s" % np.array2string(acc, precision=3), flush=True)
        manager.save(checkpoint_number=epoch + 1)
