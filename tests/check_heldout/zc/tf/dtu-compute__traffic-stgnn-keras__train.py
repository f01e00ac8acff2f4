"""Spatio-temporal GNN for 15-min-ahead traffic speed, Keras 3 fit + Horovod.

    horovodrun -np 4 python train.py --epochs 30
"""
import argparse
import dataclasses

import numpy as np
import tensorflow as tf
import horovod.tensorflow.keras as hvd

from stgnn.config import TrainConfig
from stgnn.data import RankWindows, synthetic_traffic
from stgnn.model import build_stgnn
from stgnn.train_utils import make_callbacks, make_optimizer


def parse_config():
    cfg = TrainConfig()
    ap = argparse.ArgumentParser()
    for f in dataclasses.fields(cfg):
        ap.add_argument("--" + f.name.replace("_", "-"), type=f.type if f.type in (int, float, str) else str,
                        default=getattr(cfg, f.name))
    return TrainConfig(**vars(ap.parse_args()))


def main():
    cfg = parse_config()
    hvd.init()
    for gpu in tf.config.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(gpu, True)
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    speed, adj = synthetic_traffic(cfg.n_sensors, seed=cfg.seed)
    n_train = int(0.8 * len(speed))
    mean, std = speed[:n_train].mean(), speed[:n_train].std()   # identical on all workers
    norm = (speed - mean) / std
    train_seq = RankWindows(norm[:n_train], cfg.history, cfg.horizon, cfg.batch_size,
                            rank=hvd.rank(), size=hvd.size(), seed=cfg.seed)
    val_seq = RankWindows(norm[n_train:], cfg.history, cfg.horizon, cfg.batch_size,
                          rank=hvd.rank(), size=hvd.size(), shuffle=False)

    model = build_stgnn(adj, cfg.history, cfg.n_sensors, cfg.hidden)
    model.compile(optimizer=make_optimizer(cfg), loss="mae", metrics=["mse"])

    model.fit(train_seq, validation_data=val_seq, epochs=cfg.epochs,
              callbacks=make_callbacks(cfg, len(train_seq)), verbose=2 if hvd.rank() == 0 else 0)

    # every worker scores its own equal-sized slice; average the slices
    scores = model.evaluate(val_seq, verbose=0)
    scores = [float(hvd.allreduce(np.float32(s), name=f"final_{i}")) for i, s in enumerate(scores)]
    if hvd.rank() == 0:
        print(f"final val MAE {scores[0] * std:.2f} km/h, MSE {scores[1] * std ** 2:.2f}")


if __name__ == "__main__":
    main()
