#!/usr/bin/env python
"""Tokamak 0-D profile surrogate with a physics-informed (power balance) term and learned loss weights.

    horovodrun -np 4 python train.py --h5 /proj/fusion/shots_2019_2023.h5
"""
import argparse
import os

import tensorflow as tf
import horovod.tensorflow as hvd

from tokamak.data import read_shots, shard_shots, shot_ids, to_dataset
from tokamak.model import ProfileLSTM, UncertaintyWeights
from tokamak.physics import nonneg_penalty, power_balance_residual
from tokamak.utils import init_workers, mean_over_workers

parser = argparse.ArgumentParser()
parser.add_argument("--h5", default="data/shots.h5")
parser.add_argument("--window", type=int, default=200)
parser.add_argument("--stride", type=int, default=50)
parser.add_argument("--batch", type=int, default=64)
parser.add_argument("--lr", type=float, default=5e-4)
parser.add_argument("--epochs", type=int, default=40)
parser.add_argument("--out", default="ckpt/tokamak_lstm")


def main():
    args = parser.parse_args()
    log = init_workers()

    train_ids = shard_shots(shot_ids(args.h5, "train"), hvd.rank(), hvd.size(), seed=17)
    x, y = read_shots(args.h5, "train", train_ids, args.window, args.stride)
    xv, yv = read_shots(args.h5, "valid", shot_ids(args.h5, "valid"), args.window, args.window)
    # shots differ in length: run the same number of steps everywhere
    steps = int(hvd.allreduce(tf.constant(len(x) // args.batch), op=hvd.Min, name="steps"))
    train_ds = to_dataset(x, y, args.batch, shuffle=True, seed=hvd.rank()).repeat()
    val_ds = to_dataset(xv, yv, 256, shuffle=False)
    log.info("%d workers, %d steps/epoch, %d validation windows", hvd.size(), steps, len(xv))

    model = ProfileLSTM()
    weights = UncertaintyWeights(2)
    opt = tf.keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
    w_opt = tf.keras.optimizers.Adam(learning_rate=1e-3)

    ckpt = tf.train.Checkpoint(model=model, opt=opt, loss_weights=weights)
    manager = tf.train.CheckpointManager(ckpt, args.out, max_to_keep=5)

    @tf.function
    def train_step(xb, yb, first):
        with tf.GradientTape() as tape, tf.GradientTape() as wtape:
            pred = model(xb, training=True)
            l_data = tf.reduce_mean(tf.square(pred - yb))
            l_phys = tf.reduce_mean(tf.square(power_balance_residual(xb, pred))) + nonneg_penalty(pred)
            loss = weights([l_data, l_phys])
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        w_grads = wtape.gradient(loss, weights.trainable_variables)
        w_opt.apply_gradients(zip(w_grads, weights.trainable_variables))
        if first:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        return l_data, l_phys

    it = iter(train_ds)
    for epoch in range(args.epochs):
        for s in range(steps):
            xb, yb = next(it)
            l_data, l_phys = train_step(xb, yb, epoch == 0 and s == 0)

        se, n = 0.0, 0
        for xb, yb in val_ds:
            se += float(tf.reduce_sum(tf.square(model(xb) - yb)))
            n += int(tf.size(yb))
        se, n = mean_over_workers([se, n], name="val")   # every worker has the full validation set
        log.info("epoch %d  data %.4e  phys %.4e  val mse %.4e  w=%s", epoch, float(l_data), float(l_phys),
                 se / n, weights.log_vars.numpy().round(3).tolist())
        if hvd.rank() == 0:
            manager.save(checkpoint_number=epoch)


if __name__ == "__main__":
    main()
