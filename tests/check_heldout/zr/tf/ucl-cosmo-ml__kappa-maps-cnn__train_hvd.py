"""Infer (Omega_m, S_8) from simulated weak-lensing convergence maps with a CNN.

Training uses a fixed *global* batch split over the workers, so the learning rate
from the single-GPU runs is kept as is.

  srun -N2 --ntasks-per-node=4 python train_hvd.py --maps /cosma8/kappaTNG/maps.npy
"""
import argparse
import os
import time

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

ap = argparse.ArgumentParser()
ap.add_argument("--maps", default="data/kappa_maps.npy")          # (N, 128, 128) float32
ap.add_argument("--params", default="data/cosmo_params.npy")      # (N, 2)
ap.add_argument("--global-batch", type=int, default=128)
ap.add_argument("--lr", type=float, default=5e-4)
ap.add_argument("--epochs", type=int, default=100)
ap.add_argument("--shape-noise", type=float, default=0.26 / np.sqrt(2 * 10 * 2.34 ** 2))
ap.add_argument("--ckpt", default="ckpt_kappa")
ap.add_argument("--wall-hours", type=float, default=47.5)
args = ap.parse_args()

hvd.init()
for g in tf.config.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(g, True)
gpus = tf.config.list_physical_devices("GPU")
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

assert args.global_batch % hvd.size() == 0, "global batch must divide over the workers"
local_batch = args.global_batch // hvd.size()

maps = np.load(args.maps, mmap_mode="r")
theta = np.load(args.params).astype("float32")
n = len(theta)
perm = np.random.RandomState(1).permutation(n)            # identical on all ranks
n_test = n // 10
test_idx, train_idx = np.sort(perm[:n_test]), perm[n_test:]
per_rank = len(train_idx) // hvd.size()
my_idx = np.sort(train_idx[hvd.rank() * per_rank:(hvd.rank() + 1) * per_rank])
x_train = np.asarray(maps[my_idx], dtype="float32")[..., None]
y_train = theta[my_idx]
x_test = np.asarray(maps[test_idx], dtype="float32")[..., None]
y_test = theta[test_idx]
mu, sig = theta.mean(0), theta.std(0)


def add_noise(x, y):
    return x + tf.random.normal(tf.shape(x), stddev=args.shape_noise), (y - mu) / sig


train_ds = (tf.data.Dataset.from_tensor_slices((x_train, y_train))
            .shuffle(2048, seed=hvd.rank()).map(add_noise)
            .batch(local_batch, drop_remainder=True).prefetch(2))
test_ds = tf.data.Dataset.from_tensor_slices((x_test, y_test)).batch(256)


class KappaNet(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.convs = [tf.keras.layers.Conv2D(f, 3, strides=2, padding="same", activation="leaky_relu")
                      for f in (32, 64, 128, 256)]
        self.pool = tf.keras.layers.GlobalAveragePooling2D()
        self.fc = tf.keras.layers.Dense(128, activation="leaky_relu")
        self.out = tf.keras.layers.Dense(4)           # mean and log-variance for 2 parameters

    def call(self, x, training=False):
        for c in self.convs:
            x = c(x)
        return self.out(self.fc(self.pool(x)))


def gaussian_nll(y, pred):
    m, logv = pred[:, :2], pred[:, 2:]
    return tf.reduce_mean(0.5 * (logv + tf.square(y - m) / tf.exp(logv)))


model = KappaNet()
model(tf.zeros([1, 128, 128, 1]))                     # build before restoring
opt = tf.keras.optimizers.Adam(learning_rate=args.lr)
opt.build(model.trainable_variables)
ckpt = tf.train.Checkpoint(step=tf.Variable(0, dtype=tf.int64), epoch=tf.Variable(0), model=model, optimizer=opt)
manager = tf.train.CheckpointManager(ckpt, args.ckpt, max_to_keep=2)
if manager.latest_checkpoint:
    ckpt.restore(manager.latest_checkpoint)          # shared filesystem: every rank reads it


@tf.function
def train_step(x, y, first_batch):
    with tf.GradientTape() as tape:
        loss = gaussian_nll(y, model(x, training=True))
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    if first_batch:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(opt.variables, root_rank=0)
    return loss


t0 = time.time()
first = True
for epoch in range(int(ckpt.epoch.numpy()), args.epochs):
    losses = []
    for x, y in train_ds:
        losses.append(float(train_step(x, y, first)))
        first = False
        ckpt.step.assign_add(1)
    # every rank scores the full held-out set, so rank 0's number is the global one
    sq, n_seen = np.zeros(2), 0
    for x, y in test_ds:
        pred = model(x).numpy()[:, :2] * sig + mu
        sq += ((pred - y.numpy()) ** 2).sum(0)
        n_seen += len(y)
    rmse = np.sqrt(sq / n_seen)
    ckpt.epoch.assign(epoch + 1)
    if hvd.rank() == 0:
        print(f"epoch {epoch} train_nll(rank0) {np.mean(losses):.4f} "
              f"RMSE Om {rmse[0]:.4f} S8 {rmse[1]:.4f}", flush=True)
        manager.save()
    out_of_time = int((time.time() - t0) / 3600 > args.wall_hours)
    if int(hvd.broadcast(tf.constant(out_of_time), root_rank=0, name="stop")):
        break
