"""
Random search over an MLP for tabular regression, written in the style of a Tune trainable:
`trainable(config, reporter)` runs one trial, `search()` samples configs and calls it.
Every Horovod worker runs the same sequence of trials (the sampler is seeded identically).

    horovodrun -np 4 python trial_search.py --csv data/energy.csv --target heating_load --num-trials 10
"""
import argparse
import json
import math
import os
import random

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd


def load_table(path, target):
    with open(path) as f:
        header = f.readline().strip().split(",")
    data = np.genfromtxt(path, delimiter=",", skip_header=1, dtype="float32")
    t = header.index(target)
    y = data[:, t:t + 1]
    x = np.delete(data, t, axis=1)
    mu, sd = x.mean(0), x.std(0) + 1e-6
    return (x - mu) / sd, y


class Reporter:
    def __init__(self, trial_id, out_dir):
        self.trial_id, self.out_dir, self.rows = trial_id, out_dir, []

    def __call__(self, **kw):
        self.rows.append(kw)
        if hvd.rank() == 0:
            print(f"[trial {self.trial_id}] " + " ".join(f"{k}={v:.4g}" for k, v in kw.items()))

    def dump(self, config):
        if hvd.rank() == 0:
            with open(os.path.join(self.out_dir, f"trial_{self.trial_id:03d}.json"), "w") as f:
                json.dump({"config": config, "history": self.rows}, f, indent=1)


def build_mlp(n_in, width, depth, dropout):
    inp = keras.Input((n_in,))
    x = inp
    for _ in range(depth):
        x = keras.layers.Dense(width, activation="gelu")(x)
        x = keras.layers.Dropout(dropout)(x)
    return keras.Model(inp, keras.layers.Dense(1)(x))


def trainable(config, reporter, data, out_dir):
    (x_tr, y_tr), (x_va, y_va) = data
    keras.utils.set_random_seed(config["seed"])
    model = build_mlp(x_tr.shape[1], config["width"], config["depth"], config["dropout"])
    optimizer = keras.optimizers.Adam(learning_rate=config["lr"] * hvd.size())
    optimizer.build(model.trainable_variables)
    # start every worker from rank 0's weights and (empty) slots
    hvd.broadcast_variables(model.variables, root_rank=0)
    hvd.broadcast_variables(optimizer.variables, root_rank=0)

    # identical permutation on every worker, then a contiguous block each
    order = np.random.RandomState(config["seed"]).permutation(len(x_tr))
    mine = np.array_split(order, hvd.size())[hvd.rank()]
    bs = config["batch_size"]
    steps = (len(x_tr) // hvd.size()) // bs

    @tf.function
    def step(xb, yb):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(xb, training=True) - yb))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer)
    manager = tf.train.CheckpointManager(ckpt, os.path.join(out_dir, f"ckpt_{reporter.trial_id:03d}"),
                                         max_to_keep=1)
    best, stale = math.inf, 0
    for epoch in range(config["max_epochs"]):
        np.random.RandomState(epoch).shuffle(mine)
        for i in range(steps):
            idx = mine[i * bs:(i + 1) * bs]
            loss = step(x_tr[idx], y_tr[idx])
        # validation set is small; each worker scores all of it
        val_rmse = float(np.sqrt(np.mean((model.predict(x_va, verbose=0) - y_va) ** 2)))
        reporter(epoch=epoch, train_loss=float(loss), val_rmse=val_rmse)
        if val_rmse < best:
            best, stale = val_rmse, 0
            if hvd.rank() == 0:
                manager.save()
        else:
            stale += 1
            if stale >= config["patience"]:
                break
    reporter.dump(config)
    return best


def sample(rng):
    return {"lr": 10 ** rng.uniform(-4, -2), "width": rng.choice([64, 128, 256]), "depth": rng.randint(2, 4),
            "dropout": rng.choice([0.0, 0.1, 0.2]), "batch_size": rng.choice([32, 64]),
            "max_epochs": 60, "patience": 8, "seed": rng.randint(0, 10 ** 6)}


def search(args):
    x, y = load_table(args.csv, args.target)
    n_val = int(0.2 * len(x))
    data = ((x[n_val:], y[n_val:]), (x[:n_val], y[:n_val]))
    os.makedirs(args.out, exist_ok=True)
    rng = random.Random(args.seed)
    results = []
    for trial_id in range(args.num_trials):
        config = sample(rng)
        best = trainable(config, Reporter(trial_id, args.out), data, args.out)
        results.append((best, trial_id, config))
    if hvd.rank() == 0:
        best = min(results, key=lambda r: r[0])
        print("best trial", best[1], "val_rmse", best[0], best[2])
        with open(os.path.join(args.out, "best.json"), "w") as f:
            json.dump({"trial": best[1], "val_rmse": best[0], "config": best[2]}, f, indent=2)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--csv", required=True)
    ap.add_argument("--target", required=True)
    ap.add_argument("--num-trials", type=int, default=10)
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--out", default="search_out")
    args = ap.parse_args()

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    search(args)
