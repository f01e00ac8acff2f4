#!/usr/bin/env python
"""FSD50K audio tagging (CRNN on log-mels), TF2 + Horovod.

    horovodrun -np 8 python train.py --data-dir /datasets/fsd50k_logmel --epochs 40
"""
import argparse

import horovod.tensorflow as hvd
import keras
import numpy as np
import tensorflow as tf

from tagger.config import TrainConfig
from tagger.data import build_dataset, load_split
from tagger.engine import Trainer
from tagger.hooks import CheckpointHook, EvalHook, LogHook
from tagger.model import crnn


def cosine_with_warmup(peak, warmup, total):
    def fn(step):
        if step < warmup:
            return peak * (step + 1) / warmup
        return 0.5 * peak * (1 + np.cos(np.pi * min(1.0, (step - warmup) / max(1, total - warmup))))
    return fn


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", default=TrainConfig.data_dir)
    ap.add_argument("--epochs", type=int, default=TrainConfig.epochs)
    ap.add_argument("--batch-size", type=int, default=TrainConfig.batch_size)
    ap.add_argument("--ckpt-dir", default=TrainConfig.ckpt_dir)
    cli = ap.parse_args()

    hvd.init()
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    cfg = TrainConfig(data_dir=cli.data_dir, epochs=cli.epochs, batch_size=cli.batch_size,
                      ckpt_dir=cli.ckpt_dir)
    xtr, ytr = load_split(cfg.data_dir, "train")
    xva, yva = load_split(cfg.data_dir, "val")
    train_ds = build_dataset(xtr, ytr, cfg.batch_size, hvd.size(), hvd.rank(), training=True)
    val_ds = build_dataset(xva, yva, cfg.batch_size, hvd.size(), hvd.rank(), training=False)
    steps_per_epoch = len(xtr) // (cfg.batch_size * hvd.size())

    model = crnn(cfg.frames, cfg.n_mels, cfg.num_tags)
    optimizer = keras.optimizers.Adam(learning_rate=cfg.lr)
    lr_fn = cosine_with_warmup(cfg.lr, cfg.warmup_steps, cfg.epochs * steps_per_epoch)

    hooks = [LogHook(cfg.log_every), EvalHook(val_ds), CheckpointHook(cfg.ckpt_dir)]
    Trainer(model, optimizer, lr_fn, cfg, hooks).fit(train_ds, steps_per_epoch, cfg.epochs)


if __name__ == "__main__":
    main()
