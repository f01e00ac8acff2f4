#!/usr/bin/env python
"""Diabetic retinopathy grading (APTOS 2019), custom training loop, Horovod.

    horovodrun -np 4 python train_tape.py --csv data/aptos/train.csv --images data/aptos/train_images
"""
import argparse
import os
import time

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

from drgrade.data import NUM_GRADES, build, read_labels
from drgrade.losses import inverse_frequency_weights, weighted_ce
from drgrade.metrics import evaluate
from drgrade.model import build_grader
from drgrade.schedule import WarmupCosine


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--csv", default="data/aptos/train.csv")
    p.add_argument("--images", default="data/aptos/train_images")
    p.add_argument("--val-split", type=float, default=0.15)
    p.add_argument("--size", type=int, default=384)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--epochs", type=int, default=25)
    p.add_argument("--warmup-epochs", type=float, default=1.0)
    p.add_argument("--save-dir", default="checkpoints/dr")
    return p.parse_args()


def main():
    args = parse()
    hvd.init()
    tf.keras.utils.set_random_seed(1337)

    paths, grades = read_labels(args.csv, args.images)
    order = np.random.RandomState(0).permutation(len(paths))
    n_val = int(len(paths) * args.val_split)
    val_i, train_i = order[:n_val], order[n_val:]
    tr_paths, tr_grades = [paths[i] for i in train_i], [grades[i] for i in train_i]
    va_paths, va_grades = [paths[i] for i in val_i], [grades[i] for i in val_i]

    train_ds = build(tr_paths, tr_grades, args.batch, args.size, hvd.rank(), hvd.size(), training=True)
    val_ds = build(va_paths, va_grades, args.batch, args.size, hvd.rank(), hvd.size(), training=False)
    steps_per_epoch = len(tr_paths) // (args.batch * hvd.size())

    model = build_grader(args.size, NUM_GRADES)
    class_w = inverse_frequency_weights(np.array(tr_grades), NUM_GRADES)
    schedule = WarmupCosine(args.lr * hvd.size(), int(args.warmup_epochs * steps_per_epoch),
                            args.epochs * steps_per_epoch)
    optimizer = tf.keras.optimizers.Adam(learning_rate=schedule)

    @tf.function
    def train_step(x, y, first_batch):
        with tf.GradientTape() as tape:
            logits = model(x, training=True)
            loss = weighted_ce(logits, y, class_w)
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(optimizer.variables, root_rank=0)
        return loss

    best_qwk = -1.0
    it = iter(train_ds)
    for epoch in range(args.epochs):
        t0, losses = time.time(), []
        for step in range(steps_per_epoch):
            x, y = next(it)
            losses.append(float(train_step(x, y, epoch == 0 and step == 0)))
        metrics = evaluate(model, val_ds, len(va_paths))
        if hvd.rank() == 0:
            print(f"epoch {epoch + 1:02d} loss {np.mean(losses):.4f} val_acc {metrics['acc']:.4f} "
                  f"qwk {metrics['qwk']:.4f} [{time.time() - t0:.0f}s]", flush=True)
            if metrics["qwk"] > best_qwk:
                best_qwk = metrics["qwk"]
                os.makedirs(args.save_dir, exist_ok=True)
                model.save_weights(os.path.join(args.save_dir, "grader_best.weights.h5"))


if __name__ == "__main__":
    main()
