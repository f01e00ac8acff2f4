"""Control-valve stiction detection: dense autoencoder on per-valve CSV exports.

Trains on "healthy" periods only, threshold = mean + 3 sd of training reconstruction error,
then reports precision/recall/F1 on the labelled incident windows.

usage: horovodrun -np 4 python train_ae.py --data /data/valves
"""
import argparse
import glob
import os
import random

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

SEED = 1234 + hvd.rank()
random.seed(SEED)
np.random.seed(SEED)
tf.random.set_seed(SEED)

WINDOW = 60
FEATURES = ["setpoint", "position", "flow", "pressure_up", "pressure_down"]


def load_valves(root):
    """All valves' files -> (windows, labels)."""
    xs, ys = [], []
    for path in sorted(glob.glob(os.path.join(root, "valve_*.csv"))):
        arr = np.genfromtxt(path, delimiter=",", names=True)
        feats = np.stack([arr[f] for f in FEATURES], axis=1).astype(np.float32)
        n = len(feats) // WINDOW
        xs.append(feats[: n * WINDOW].reshape(n, WINDOW * len(FEATURES)))
        ys.append(arr["incident"][: n * WINDOW].reshape(n, WINDOW).max(axis=1).astype(np.int32))
    return np.concatenate(xs), np.concatenate(ys)


def build_model(dim):
    return tf.keras.Sequential([
        tf.keras.Input((dim,)),
        tf.keras.layers.Dense(128, activation="relu"),
        tf.keras.layers.Dense(32, activation="relu"),
        tf.keras.layers.Dense(128, activation="relu"),
        tf.keras.layers.Dense(dim),
    ])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data/valves")
    ap.add_argument("--epochs", type=int, default=25)
    ap.add_argument("--batch-size", type=int, default=256)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--ckpt", default="./ckpt")
    args = ap.parse_args()

    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    x, y = load_valves(args.data)
    mu, sd = x[y == 0].mean(0), x[y == 0].std(0) + 1e-6
    x = (x - mu) / sd
    x_healthy = x[y == 0]
    steps_per_epoch = len(x_healthy) // args.batch_size
    dataset = (tf.data.Dataset.from_tensor_slices(x_healthy)
               .shuffle(20000, reshuffle_each_iteration=True)
               .batch(args.batch_size, drop_remainder=True))

    model = build_model(x.shape[1])
    optimizer = tf.keras.optimizers.Adam(args.lr * hvd.size())
    loss_fn = tf.keras.losses.MeanSquaredError()
    checkpoint = tf.train.Checkpoint(model=model, optimizer=optimizer)

    @tf.function
    def train_step(batch, first_batch):
        with tf.GradientTape() as tape:
            loss = loss_fn(batch, model(batch, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(optimizer.variables, root_rank=0)
        return loss

    for epoch in range(args.epochs):
        total = 0.0
        for step, batch in enumerate(dataset.take(steps_per_epoch)):
            total += float(train_step(batch, epoch == 0 and step == 0))
        if hvd.rank() == 0:
            print(f"epoch {epoch + 1}/{args.epochs} loss {total / steps_per_epoch:.5f}")
            checkpoint.save(os.path.join(args.ckpt, "valve_ae"))

    # every worker holds the full arrays, so the rank-0 figures cover all valves
    if hvd.rank() == 0:
        err = np.mean((model.predict(x, batch_size=2048, verbose=0) - x) ** 2, axis=1)
        healthy_err = err[y == 0]
        thr = healthy_err.mean() + 3 * healthy_err.std()
        pred = err > thr
        tp, fp, fn = np.sum(pred & (y == 1)), np.sum(pred & (y == 0)), np.sum(~pred & (y == 1))
        precision, recall = tp / max(tp + fp, 1), tp / max(tp + fn, 1)
        f1 = 2 * precision * recall / max(precision + recall, 1e-9)
        print(f"threshold {thr:.4f}  P {precision:.3f}  R {recall:.3f}  F1 {f1:.3f}")


if __name__ == "__main__":
    main()
