"""Rank script: data-parallel training with hvdkit.tensorflow, then the same steps sequentially on rank 0.

Prints `MAXREL <opt> <shuffle> <value>` and `HASH <rank> <opt> <shuffle> <sha>` like equiv_torch.py.
The sequential order is rebuilt from each rank's shard pipeline: global batch j is the union of the
ranks' j-th local batches.
"""
import argparse
import hashlib

import numpy as np
import tensorflow as tf
import keras

import hvdkit.tensorflow as hk
from hvdkit.tensorflow._data import epoch_order

N, D, C = 96, 6, 3


def data():
    rng = np.random.default_rng(7)
    return rng.standard_normal((N, D)).astype("float32"), rng.integers(0, C, N).astype("int32")


def model(seed):
    keras.utils.set_random_seed(seed)
    m = keras.Sequential([keras.Input((D,)), keras.layers.Dense(16, activation="tanh"), keras.layers.Dense(C)])
    return m


def make_opt(name):
    return keras.optimizers.SGD(0.1, momentum=0.9) if name == "sgd" else keras.optimizers.Adam(0.01)


def flat(m):
    return np.concatenate([v.numpy().reshape(-1) for v in m.trainable_variables])


loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--epochs", type=int, default=2)
    args = ap.parse_args()
    run(hk.init(seed=0, threads=1), args.batch, args.epochs)


def run(ctx, batch, epochs=2):
    """Every case in turn; also one of the checks of steps_tf.py's shared launch (tests/steps.py)."""
    x, y = data()
    for opt_name in ("sgd", "adam"):
        for shuffle in (False, True):
            net = model(seed=100 + ctx.rank)  # different on each rank: broadcast must fix it
            opt = make_opt(opt_name)
            hk.broadcast_state(net, opt)
            train = hk.shard(tf.data.Dataset.from_tensor_slices((x, y)), batch, shuffle=shuffle, seed=3)

            @tf.function
            def step(xb, yb):
                with tf.GradientTape() as tape:
                    loss = loss_fn(yb, net(xb, training=True))
                tape = hk.DistributedGradientTape(tape)
                grads = tape.gradient(loss, net.trainable_variables)
                opt.apply_gradients(zip(grads, net.trainable_variables))

            for epoch in range(epochs):
                for xb, yb in train.for_epoch(epoch):
                    step(xb, yb)
            w = flat(net)
            print("HASH", ctx.rank, opt_name, shuffle, hashlib.sha256(w.tobytes()).hexdigest(), flush=True)
            if ctx.rank == 0:
                ref = sequential(x, y, opt_name, shuffle, batch, ctx.size, epochs)
                print("MAXREL", opt_name, shuffle, float(np.abs(w - ref).max() / np.abs(ref).max()), flush=True)


def sequential(x, y, opt_name, shuffle, b, p, epochs):
    net = model(seed=100)
    opt = make_opt(opt_name)
    for epoch in range(epochs):
        # Sample order of each rank's shard, from the same pipeline on indices instead of samples.
        local = epoch_order(N // p, 3, epoch).numpy() if shuffle else np.arange(N // p)
        per_rank = [np.arange(r, N, p)[local] for r in range(p)]  # shard r holds samples r, r+p, ...
        for j in range(0, N // p, b):
            idx = np.concatenate([order[j:j + b] for order in per_rank])
            with tf.GradientTape() as tape:
                loss = loss_fn(y[idx], net(x[idx], training=True))
            grads = tape.gradient(loss, net.trainable_variables)
            opt.apply_gradients(zip(grads, net.trainable_variables))
    return flat(net)


if __name__ == "__main__":
    main()
