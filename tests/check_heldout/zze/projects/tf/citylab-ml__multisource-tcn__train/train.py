"""Multi-horizon traffic forecasting from several sensor networks (mixed per batch).

horovodrun -np 8 python train.py --sources data/pems04.npy data/pems08.npy --mix 0.6 0.4 --eval data/pems08_test.npy
"""
import argparse
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from tcnmt import setup_runtime
from tcnmt.data import eval_dataset, mixed_train_dataset
from tcnmt.model import tcn_forecaster
from tcnmt.train_utils import horizon_loss, make_train_step

HORIZONS = (3, 6, 12)
HORIZON_WEIGHTS = {"h3": 0.25, "h6": 0.25, "h12": 1.0}


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sources", nargs="+", required=True)
    ap.add_argument("--mix", nargs="+", type=float, default=None)
    ap.add_argument("--eval", required=True)
    ap.add_argument("--history", type=int, default=24)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--clip", type=float, default=5.0)
    ap.add_argument("--out", default="out/tcn")
    return ap.parse_args()


def main():
    args = parse_args()
    rank, size = setup_runtime(seed=42)
    weights = args.mix or [1.0 / len(args.sources)] * len(args.sources)

    train_ds, steps = mixed_train_dataset(args.sources, weights, args.history, HORIZONS, args.batch_size)
    val_ds = eval_dataset(args.eval, args.history, HORIZONS, 512)
    n_sensors = np.load(args.sources[0], mmap_mode="r").shape[1]

    model = tcn_forecaster(args.history, n_sensors, HORIZONS)
    lr = keras.optimizers.schedules.ExponentialDecay(args.lr * size, decay_steps=steps, decay_rate=0.9)
    optimizer = keras.optimizers.Adam(lr)
    train_step = make_train_step(model, optimizer, HORIZON_WEIGHTS, args.clip)

    best = np.inf
    it = iter(train_ds)
    for epoch in range(args.epochs):
        running = []
        for step in range(steps):
            x, y = next(it)
            running.append(float(train_step(x, y, epoch == 0 and step == 0)))

        maes, n = np.zeros(len(HORIZONS)), 0
        for x, y in val_ds:
            pred = model(x, training=False)
            maes += [float(tf.reduce_sum(tf.reduce_mean(tf.abs(y[f"h{h}"] - pred[f"h{h}"]), -1)))
                     for h in HORIZONS]
            n += int(x.shape[0])
        maes = hvd.allreduce(tf.constant(maes / n), name="val_mae").numpy()
        val_loss = sum(HORIZON_WEIGHTS[f"h{h}"] * m for h, m in zip(HORIZONS, maes))

        if rank == 0:
            print(f"epoch {epoch}: train {np.mean(running):.4f} val "
                  + " ".join(f"h{h}={m:.4f}" for h, m in zip(HORIZONS, maes)), flush=True)
            if val_loss < best:
                best = val_loss
                os.makedirs(args.out, exist_ok=True)
                model.save_weights(os.path.join(args.out, "best.weights.h5"))


if __name__ == "__main__":
    main()
