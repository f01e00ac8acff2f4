#!/usr/bin/env python
# MLP surrogate for the CFD drag coefficient: 12 design parameters -> Cd, Cl.
# Trained on the sweep results in sweep.npz. Horovod version for the GPU partition.
import argparse
import json
import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


def get_args():
    p = argparse.ArgumentParser(description="surrogate model")
    p.add_argument("--data", default="sweep.npz")
    p.add_argument("--epochs", type=int, default=500)
    p.add_argument("--bs", type=int, default=64)
    p.add_argument("--lr", type=float, default=5e-4)
    p.add_argument("--patience", type=int, default=25)
    p.add_argument("--out", default="surrogate_out")
    return p.parse_args()


class Surrogate(tf.keras.Model):
    def __init__(self, width=256, depth=4, n_out=2):
        super().__init__()
        self.hidden = [tf.keras.layers.Dense(width, activation="swish") for _ in range(depth)]
        self.drop = tf.keras.layers.Dropout(0.1)
        self.head = tf.keras.layers.Dense(n_out)

    def call(self, x, training=False):
        for layer in self.hidden:
            x = layer(x)
        x = self.drop(x, training=training)
        return self.head(x)


def standardise(train, *others):
    mu, sd = train.mean(0), train.std(0) + 1e-8
    return [(a - mu) / sd for a in (train,) + others], (mu, sd)


def main():
    args = get_args()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    d = np.load(args.data)
    x, y = d["params"].astype("float32"), d["coeffs"].astype("float32")
    rng = np.random.default_rng(1234)          # same split on every rank
    idx = rng.permutation(len(x))
    n_tr = int(0.85 * len(x))
    tr, va = idx[:n_tr], idx[n_tr:]
    (x_tr, x_va), x_stats = standardise(x[tr], x[va])
    (y_tr, y_va), y_stats = standardise(y[tr], y[va])

    train_ds = (tf.data.Dataset.from_tensor_slices((x_tr, y_tr))
                .shard(hvd.size(), hvd.rank())
                .shuffle(len(x_tr))
                .batch(args.bs))
    val_ds = (tf.data.Dataset.from_tensor_slices((x_va, y_va))
              .shard(hvd.size(), hvd.rank())
              .batch(256))

    model = Surrogate()
    opt = tf.keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
    # make sure all workers start from the same weights
    hvd.broadcast_variables(model.variables, root_rank=0)

    @tf.function
    def train_step(xb, yb):
        with tf.GradientTape() as tape:
            pred = model(xb, training=True)
            loss = tf.reduce_mean(tf.square(pred - yb))
        grads = tape.gradient(loss, model.trainable_variables)
        grads = [hvd.allreduce(g) for g in grads]
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    @tf.function
    def val_step(xb, yb):
        pred = model(xb, training=False)
        return tf.reduce_sum(tf.square(pred - yb)), tf.cast(tf.size(yb), tf.float32)

    if hvd.rank() == 0:
        os.makedirs(args.out, exist_ok=True)

    best, wait, history = np.inf, 0, []
    for epoch in range(args.epochs):
        tr_losses = [float(train_step(xb, yb)) for xb, yb in train_ds]
        sse, cnt = 0.0, 0.0
        for xb, yb in val_ds:
            s, c = val_step(xb, yb)
            sse += float(s)
            cnt += float(c)
        val_mse = sse / cnt
        history.append({"epoch": epoch, "train": float(np.mean(tr_losses)), "val": val_mse})

        if val_mse < best - 1e-6:
            best, wait = val_mse, 0
            if hvd.rank() == 0:
                model.save_weights(os.path.join(args.out, "best.weights.h5"))
        else:
            wait += 1
        if hvd.rank() == 0 and epoch % 10 == 0:
            print(f"[{epoch:4d}] train {history[-1]['train']:.5f}  val {val_mse:.5f}  best {best:.5f}")
        if wait >= args.patience:
            if hvd.rank() == 0:
                print(f"early stopping at epoch {epoch}, best val mse {best:.5f}")
            break

    if hvd.rank() == 0:
        with open(os.path.join(args.out, "history.json"), "w") as f:
            json.dump(history, f)
        np.savez(os.path.join(args.out, "scaling.npz"), x_mu=x_stats[0], x_sd=x_stats[1],
                 y_mu=y_stats[0], y_sd=y_stats[1])


if __name__ == "__main__":
    main()
