"""Rolling re-training of a cross-sectional return MLP (monthly rebalancing).

Period 0: full fit on the initial training window.  Every later month: warm-start fine-tune on the
expanding window, then forecast the next month and score MAPE of |r| and directional accuracy.
"""
import argparse
import os
import time

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

parser = argparse.ArgumentParser()
parser.add_argument("--n-stocks", type=int, default=300)
parser.add_argument("--n-months", type=int, default=180)
parser.add_argument("--n-factors", type=int, default=12)
parser.add_argument("--init-months", type=int, default=120)
parser.add_argument("--batch", type=int, default=256)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--ft-lr", type=float, default=2e-4)
parser.add_argument("--init-epochs", type=int, default=20)
parser.add_argument("--ft-epochs", type=int, default=2)
parser.add_argument("--out", default="rolling_out")
args = parser.parse_args()

hvd.init()
gpus = tf.config.experimental.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

rng = np.random.RandomState(2020)
F = rng.randn(args.n_months, args.n_stocks, args.n_factors).astype(np.float32)
beta = rng.randn(args.n_factors).astype(np.float32) * 0.01
R = (F @ beta + 0.05 * rng.randn(args.n_months, args.n_stocks)).astype(np.float32)


def window(lo, hi):
    """Samples of months [lo, hi), standardised with the statistics of those months only."""
    x = F[lo:hi].reshape(-1, args.n_factors)
    y = R[lo:hi].reshape(-1, 1)
    return x, y, x.mean(0), x.std(0) + 1e-6


def my_shard(x, y):
    n = len(x) // hvd.size()
    sl = slice(hvd.rank() * n, (hvd.rank() + 1) * n)
    return x[sl], y[sl]


def batches(x, y, seed):
    idx = np.random.RandomState(seed).permutation(len(x))
    for i in range(0, len(idx) - args.batch + 1, args.batch):
        j = idx[i:i + args.batch]
        yield x[j], y[j]


model = tf.keras.Sequential([
    tf.keras.layers.Input((args.n_factors,)),
    tf.keras.layers.Dense(64, activation="relu"),
    tf.keras.layers.Dropout(0.1),
    tf.keras.layers.Dense(32, activation="relu"),
    tf.keras.layers.Dense(1),
])
opt = tf.keras.optimizers.Adam(args.lr * hvd.size())
ft_opt = tf.keras.optimizers.Adam(args.ft_lr * hvd.size())
mse = tf.keras.losses.MeanSquaredError()


@tf.function
def train_step(x, y, first_batch):
    with tf.GradientTape() as tape:
        loss = mse(y, model(x, training=True))
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    if first_batch:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(opt.variables, root_rank=0)
    return loss


@tf.function
def finetune_step(x, y):
    with tf.GradientTape() as tape:
        loss = mse(y, model(x, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    ft_opt.apply_gradients(zip(grads, model.trainable_variables))
    return loss


def score(x, y):
    p = model(x, training=False).numpy()
    mape = np.mean(np.abs(np.abs(p) - np.abs(y)) / np.maximum(np.abs(y), 1e-3)) * 100
    hit = np.mean(np.sign(p) == np.sign(y))
    m = hvd.allreduce(tf.constant([mape, hit], tf.float64), op=hvd.Sum, name="score")
    return m.numpy()


# ---- period 0: initial fit ----
x, y, mu, sd = window(0, args.init_months)
xs, ys = my_shard((x - mu) / sd, y)
first = True
for ep in range(args.init_epochs):
    for xb, yb in batches(xs, ys, seed=ep):
        train_step(xb, yb, first)
        first = False

# ---- rolling months ----
results = []
for m in range(args.init_months, args.n_months - 1):
    t0 = time.time()
    x, y, mu, sd = window(0, m)
    xs, ys = my_shard((x - mu) / sd, y)
    for ep in range(args.ft_epochs):
        for xb, yb in batches(xs, ys, seed=1000 * m + ep):
            finetune_step(xb, yb)
    xt, yt = F[m], R[m][:, None]
    xt, yt = my_shard((xt - mu) / sd, yt)
    mape, hit = score(xt, yt)
    results.append((m, mape, hit))
    if hvd.rank() == 0:
        print(f"month {m}: MAPE {mape:.1f}% hit-rate {hit:.3f} ({time.time() - t0:.1f}s)")
        os.makedirs(args.out, exist_ok=True)
        model.save_weights(os.path.join(args.out, "mlp_latest.weights.h5"))

if hvd.rank() == 0:
    np.savetxt(os.path.join(args.out, "rolling_scores.csv"), np.array(results), delimiter=",",
               header="month,mape,hit_rate")
