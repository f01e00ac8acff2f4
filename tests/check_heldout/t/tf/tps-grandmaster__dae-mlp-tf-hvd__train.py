# Tabular Playground -- swap-noise DAE pretraining + MLP fine-tuning (TF2 loops, Horovod).
# Flattened from the notebook so it can run on the 4-GPU box:  horovodrun -np 4 python train.py
import argparse
import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

hvd.init()
gpus = tf.config.list_physical_devices("GPU")
for g in gpus:
    tf.config.experimental.set_memory_growth(g, True)
if gpus:
    tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

import keras  # noqa: E402

P = argparse.ArgumentParser()
P.add_argument("--data", default="input/tps_features.npz")
P.add_argument("--dae-epochs", type=int, default=30)
P.add_argument("--epochs", type=int, default=40)
P.add_argument("--bs", type=int, default=512)
P.add_argument("--lr", type=float, default=1e-3)
P.add_argument("--swap", type=float, default=0.15)
P.add_argument("--patience", type=int, default=5)
P.add_argument("--out", default="output")
ARGS = P.parse_args()

RAW = np.load(ARGS.data)
X, Y = RAW["x"].astype("float32"), RAW["y"].astype("int64")
X_TEST = RAW["x_test"].astype("float32")
N_CLASSES = int(Y.max()) + 1
rng = np.random.RandomState(0)
is_val = rng.rand(len(X)) < 0.1
X_TR, Y_TR, X_VA, Y_VA = X[~is_val], Y[~is_val], X[is_val], Y[is_val]
ALL_X = np.concatenate([X, X_TEST])            # the DAE sees train + test features


def make_ds(*arrays, training=True):
    ds = tf.data.Dataset.from_tensor_slices(arrays if len(arrays) > 1 else arrays[0])
    if training:
        ds = ds.shuffle(len(arrays[0]))
    ds = ds.shard(hvd.size(), hvd.rank())
    return ds.batch(ARGS.bs, drop_remainder=training).prefetch(tf.data.AUTOTUNE)


def swap_noise(x):
    # replace each cell, with probability p, by the same column of a random other row
    idx = tf.random.uniform(tf.shape(x), 0, tf.shape(x)[0], dtype=tf.int32)
    cols = tf.broadcast_to(tf.range(tf.shape(x)[1]), tf.shape(x))
    swapped = tf.gather_nd(x, tf.stack([idx, cols], -1))
    mask = tf.random.uniform(tf.shape(x)) < ARGS.swap
    return tf.where(mask, swapped, x)


# ======================================================================= phase 1: DAE
d_in = X.shape[1]
enc = keras.Sequential([keras.Input((d_in,)), keras.layers.Dense(1024, activation="relu"),
                        keras.layers.Dense(1024, activation="relu"), keras.layers.Dense(512, activation="relu")])
dec = keras.Sequential([keras.Input((512,)), keras.layers.Dense(d_in)])
dae_opt = keras.optimizers.Adam(ARGS.lr * hvd.size())


@tf.function
def dae_step(x, first):
    with tf.GradientTape() as tape:
        rec = dec(enc(swap_noise(x), training=True), training=True)
        loss = tf.reduce_mean(tf.square(rec - x))
    tape = hvd.DistributedGradientTape(tape)
    variables = enc.trainable_variables + dec.trainable_variables
    opt_grads = tape.gradient(loss, variables)
    dae_opt.apply_gradients(zip(opt_grads, variables))
    if first:
        hvd.broadcast_variables(enc.variables + dec.variables, root_rank=0)
        hvd.broadcast_variables(dae_opt.variables, root_rank=0)
    return loss


dae_ds = make_ds(ALL_X)
for ep in range(ARGS.dae_epochs):
    tot = []
    for i, xb in enumerate(dae_ds):
        tot.append(float(dae_step(xb, ep == 0 and i == 0)))
    if hvd.rank() == 0:
        print(f"DAE {ep}: recon {np.mean(tot):.5f}", flush=True)

# ======================================================================= phase 2: MLP on DAE features
head = keras.Sequential([keras.Input((512,)), keras.layers.Dropout(0.3), keras.layers.Dense(256, activation="relu"),
                         keras.layers.Dense(N_CLASSES)])
opt = keras.optimizers.Adam(ARGS.lr * hvd.size())
ce = keras.losses.SparseCategoricalCrossentropy(from_logits=True)


@tf.function
def ft_step(x, y, first):
    with tf.GradientTape() as tape:
        loss = ce(y, head(enc(x, training=True), training=True))
    tape = hvd.DistributedGradientTape(tape)
    variables = enc.trainable_variables + head.trainable_variables
    grads = tape.gradient(loss, variables)
    opt.apply_gradients(zip(grads, variables))
    if first:
        hvd.broadcast_variables(head.variables, root_rank=0)
        hvd.broadcast_variables(opt.variables, root_rank=0)
    return loss


def validate(ds):
    losses, hits, n = [], 0, 0
    for xb, yb in ds:
        logits = head(enc(xb, training=False), training=False)
        losses.append(float(ce(yb, logits)) * len(yb))
        hits += int(tf.reduce_sum(tf.cast(tf.argmax(logits, 1) == yb, tf.int32)))
        n += len(yb)
    return sum(losses) / n, hits / n


train_ds, val_ds = make_ds(X_TR, Y_TR), make_ds(X_VA, Y_VA, training=False)
best, wait = np.inf, 0
os.makedirs(ARGS.out, exist_ok=True)
for ep in range(ARGS.epochs):
    for i, (xb, yb) in enumerate(train_ds):
        ft_step(xb, yb, ep == 0 and i == 0)
    val_loss, val_acc = validate(val_ds)
    stop = 0
    if hvd.rank() == 0:
        print(f"MLP {ep}: val loss {val_loss:.5f} acc {val_acc:.4f}", flush=True)
        if val_loss < best:
            best, wait = val_loss, 0
            enc.save_weights(os.path.join(ARGS.out, "enc.weights.h5"))
            head.save_weights(os.path.join(ARGS.out, "head.weights.h5"))
        else:
            wait += 1
            stop = int(wait >= ARGS.patience)
    if int(hvd.broadcast(tf.constant(stop), root_rank=0, name="stop")):
        break
