#!/usr/bin/env python
"""Deep evidential regression (Amini et al. 2020) of jet energy corrections, TF2 + Horovod.

Multi-worker training loop with tf.GradientTape; reports test RMSE, NLL and the mean
aleatoric / epistemic uncertainty, plus the same on an out-of-distribution (high-pileup) file.
"""
import argparse
import os
import time

import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from evidential import hvd_utils
from evidential.data import load_split, make_dataset
from evidential.losses import evidential_loss, nig_nll, uncertainties
from evidential.model import build_regressor


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="data/jets_nominal.npz")
    p.add_argument("--ood-data", default="data/jets_highpu.npz")
    p.add_argument("--steps", type=int, default=20000)
    p.add_argument("--eval-every", type=int, default=1000)
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--lr", type=float, default=5e-4)
    p.add_argument("--reg", type=float, default=1e-2)
    p.add_argument("--ckpt-dir", default="ckpt/evidential")
    return p.parse_args()


def main():
    args = parse()
    rank, world = hvd_utils.setup()

    x_tr, y_tr = load_split(args.data, "train")
    x_te, y_te = load_split(args.data, "test")
    x_ood, y_ood = load_split(args.ood_data, "test")
    train_ds = make_dataset(x_tr, y_tr, args.batch_size, world, rank, training=True)
    test_ds = make_dataset(x_te, y_te, 1024, world, rank, training=False)
    ood_ds = make_dataset(x_ood, y_ood, 1024, world, rank, training=False)

    model = build_regressor(x_tr.shape[1])
    opt = keras.optimizers.Adam(learning_rate=args.lr * world, clipnorm=None)
    ckpt = tf.train.Checkpoint(model=model, optimizer=opt, step=tf.Variable(0, dtype=tf.int64))
    manager = tf.train.CheckpointManager(ckpt, args.ckpt_dir, max_to_keep=3)

    @tf.function
    def train_step(x, y, first_batch):
        with tf.GradientTape() as tape:
            out = model(x, training=True)
            loss = evidential_loss(y, out, args.reg)
        tape = hvd.DistributedGradientTape(tape, compression=hvd.Compression.fp16)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        return loss

    def evaluate(ds):
        se, nll, alea, epi, n = (keras.metrics.Mean() for _ in range(5))
        for x, y in ds:
            out = model(x, training=False)
            mu, a, e = uncertainties(out)
            se.update_state(tf.square(mu - y))
            nll.update_state(nig_nll(y, out))
            alea.update_state(a)
            epi.update_state(e)
        # equal, drop-remainder shards: the mean of the workers' means is the global mean
        return {k: hvd_utils.global_average(m.result(), f"eval_{k}")
                for k, m in (("mse", se), ("nll", nll), ("aleatoric", alea), ("epistemic", epi))}

    t0 = time.time()
    for step, (x, y) in enumerate(train_ds.take(args.steps)):
        loss = train_step(x, y, step == 0)
        ckpt.step.assign_add(1)
        if (step + 1) % args.eval_every == 0:
            ind, ood = evaluate(test_ds), evaluate(ood_ds)
            if hvd_utils.is_chief():
                print(f"step {step + 1}: loss {float(loss):.4f} | test rmse {ind['mse'] ** 0.5:.4f} "
                      f"nll {ind['nll']:.4f} epi {ind['epistemic']:.4g} | ood nll {ood['nll']:.4f} "
                      f"epi {ood['epistemic']:.4g} | {time.time() - t0:.0f}s", flush=True)
                manager.save(checkpoint_number=step + 1)


if __name__ == "__main__":
    main()
