"""Self-supervised pretraining on unlabelled gearbox vibration, then a linear probe for
tooth-fault detection.  TF2 custom loops + horovod.tensorflow.

    mpirun -np 4 python pretrain_probe.py --unlabelled u.npy --labelled l.npz
"""
import argparse
import os
from types import SimpleNamespace

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from gearssl.augment import pair_dataset
from gearssl.encoder import make_encoder, make_projector
from gearssl.hvd_ops import RankZeroCheckpoint
from gearssl.loops import linear_probe, pretrain


def cli():
    ap = argparse.ArgumentParser()
    ap.add_argument("--unlabelled", default="data/gearbox_unlabelled.npy")
    ap.add_argument("--labelled", default="data/gearbox_labelled.npz")
    ap.add_argument("--epochs", type=int, default=60)
    ap.add_argument("--batch", type=int, default=128, help="per worker")
    ap.add_argument("--lr", type=float, default=1e-3, help="per-worker-batch learning rate")
    ap.add_argument("--out", default="checkpoints/gearssl")
    return SimpleNamespace(**vars(ap.parse_args()))


def setup_devices():
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    if gpus:
        tf.config.experimental.set_memory_growth(gpus[hvd.local_rank()], True)
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")


def main():
    cfg = cli()
    setup_devices()
    log = print if hvd.rank() == 0 else (lambda *a, **k: None)

    x_u = np.load(cfg.unlabelled).astype("float32")
    ds = pair_dataset(x_u, cfg.batch, hvd.size(), hvd.rank(), seed=hvd.rank())
    # ranks must run the same number of steps: trim to the smallest shard
    steps = len(x_u) // hvd.size() // cfg.batch
    ds = ds.take(steps)

    encoder = make_encoder(x_u.shape[1], x_u.shape[2])
    projector = make_projector()
    optimizer = keras.optimizers.Adam(cfg.lr * hvd.size())
    ckpt = RankZeroCheckpoint(cfg.out, encoder=encoder, projector=projector, optimizer=optimizer)
    pretrain(encoder, projector, optimizer, ds, cfg.epochs, ckpt, log)

    lab = np.load(cfg.labelled)
    x, y = lab["x"].astype("float32"), lab["y"].astype("int64")
    split = int(0.6 * len(x))
    r, s = hvd.rank(), hvd.size()
    p, rec, f1 = linear_probe(encoder, x[:split][r::s], y[:split][r::s], x[split:][r::s], y[split:][r::s])
    log(f"linear probe  precision {p:.3f}  recall {rec:.3f}  F1 {f1:.3f}")
    if hvd.rank() == 0:
        encoder.save_weights(os.path.join(cfg.out, "encoder.weights.h5"))


if __name__ == "__main__":
    main()
