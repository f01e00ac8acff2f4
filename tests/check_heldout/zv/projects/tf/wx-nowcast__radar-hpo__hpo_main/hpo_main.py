"""Radar nowcasting: grid search over lr x filters from configs/hpo.yaml (Horovod, tape loop)."""
import argparse
import os

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from nowcast import config as C
from nowcast import dist
from nowcast.model import build
from nowcast.trainer import Trainer


def make_windows(frames, history):
    x = np.stack([frames[i:i + history] for i in range(len(frames) - history)])[..., None]
    y = frames[history:][..., None]
    return x.astype("float32"), y.astype("float32")


def run_trial(trial, frames):
    size, rank = dist.world()
    x, y = make_windows(frames, trial["history"])
    n_val = len(x) // 10
    steps = (len(x) - n_val) // size // trial["batch_size"]   # same count on every worker
    train = (tf.data.Dataset.from_tensor_slices((x[n_val:], y[n_val:]))
             .shard(size, rank).shuffle(512).batch(trial["batch_size"], drop_remainder=True).take(steps))
    val = tf.data.Dataset.from_tensor_slices((x[:n_val], y[:n_val])).shard(size, rank).batch(32)

    model = build(trial["history"], x.shape[2], x.shape[3], trial["filters"])
    optimizer = keras.optimizers.Adam(learning_rate=trial["lr"] * size)
    out_dir = os.path.join(trial["out_dir"], f"lr{trial['lr']}_f{trial['filters']}")
    os.makedirs(out_dir, exist_ok=True)
    trainer = Trainer(model, optimizer, out_dir)

    best, waited, log = np.inf, 0, []
    first = True
    for epoch in range(trial["epochs"]):
        for xb, yb in train:
            loss = trainer.train_step(xb, yb, tf.constant(first))
            first = False
        val_mse = trainer.evaluate(val)
        log.append({"epoch": epoch, "loss": float(loss), "val_mse": val_mse})
        if rank == 0:
            print(f"[{os.path.basename(out_dir)}] epoch {epoch} loss {float(loss):.5f} val {val_mse:.5f}")
        if val_mse < best:
            best, waited = val_mse, 0
            trainer.save("best")
        else:
            waited += 1
            if waited >= trial["patience"]:
                break
    trainer.write_json("trial.json", {"trial": trial, "best_val_mse": best, "log": log})
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/hpo.yaml")
    args = ap.parse_args()
    cfg = C.load(args.config)
    dist.init()
    frames = np.load(cfg["data"])["frames"].astype("float32") / 255.0
    scores = {}
    for trial in C.expand_grid(cfg):
        scores[(trial["lr"], trial["filters"])] = run_trial(trial, frames)
    if hvd.rank() == 0:
        best = min(scores, key=scores.get)
        print("best (lr, filters):", best, "val_mse:", scores[best])


if __name__ == "__main__":
    main()
