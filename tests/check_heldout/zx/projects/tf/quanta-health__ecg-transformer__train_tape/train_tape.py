#!/usr/bin/env python
"""ECG rhythm classifier: custom GradientTape loop, Horovod data parallel.

Usage: horovodrun -np 8 python train_tape.py --config configs/base.json
"""
import argparse
import logging
import time

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

from ecg.config import load_config
from ecg.data import build_split
from ecg.engine import Trainer
from ecg.ckpt import CheckpointHelper

log = logging.getLogger("ecg")


def evaluate(trainer, val_ds):
    losses, correct, seen = [], 0, 0
    for x, y in val_ds:
        loss, logits = trainer.eval_step(x, y)
        losses.append(float(loss))
        correct += int(tf.reduce_sum(tf.cast(tf.argmax(logits, -1, output_type=tf.int32) == y, tf.int32)))
        seen += int(y.shape[0])
    return float(np.mean(losses)), correct / max(seen, 1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default=None)
    ap.add_argument("--workdir", default="outputs/ecg")
    cli = ap.parse_args()
    cfg = load_config(cli.config)

    hvd.init()
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")
    if cfg.mixed_precision:
        tf.keras.mixed_precision.set_global_policy("mixed_float16")
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(message)s")

    train_ds, n_train = build_split(cfg, "train", hvd.size(), hvd.rank())
    val_ds, _ = build_split(cfg, "val", hvd.size(), hvd.rank())
    steps_per_epoch = n_train // (cfg.batch_size * hvd.size())

    trainer = Trainer(cfg, lr=cfg.lr * hvd.size())
    ckpt = CheckpointHelper(cli.workdir, model=trainer.model, optimizer=trainer.optimizer)
    start_epoch = ckpt.restore_latest()
    writer = tf.summary.create_file_writer(cli.workdir + "/tb") if hvd.rank() == 0 else None

    train_iter = iter(train_ds)
    for epoch in range(start_epoch, cfg.epochs):
        t0 = time.time()
        for step in range(steps_per_epoch):
            x, y = next(train_iter)
            loss = trainer.train_step(x, y)
            if epoch == start_epoch and step == 0:
                hvd.broadcast_variables(trainer.model.variables, root_rank=0)
                hvd.broadcast_variables(trainer.optimizer.variables, root_rank=0)
        val_loss, val_acc = evaluate(trainer, val_ds)
        if hvd.rank() == 0:
            log.info("epoch %d train_loss %.4f val_loss %.4f val_acc %.4f (%.0fs)",
                     epoch, float(loss), val_loss, val_acc, time.time() - t0)
            with writer.as_default():
                tf.summary.scalar("train/loss", loss, step=epoch)
                tf.summary.scalar("val/loss", val_loss, step=epoch)
                tf.summary.scalar("val/acc", val_acc, step=epoch)
        ckpt.save(epoch + 1)


if __name__ == "__main__":
    main()
