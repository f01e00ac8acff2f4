"""Cloud-fraction regression from 8-band satellite patches; TF2 custom loop + Horovod.

    horovodrun -np 8 -H n1:4,n2:4 python train.py --train 'data/train-*.tfrecord' --test 'data/test-*.tfrecord'
"""
import argparse
import glob
import logging
import os
import time

import tensorflow as tf
import horovod.tensorflow as hvd

from cloudtape import init_horovod
from cloudtape.data import count_records, eval_dataset, train_dataset
from cloudtape.evaluate import evaluate_full
from cloudtape.model import build_regressor
from cloudtape.schedule import make_schedule

log = logging.getLogger("cloudtape.train")


def get_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", default="data/train-*.tfrecord")
    ap.add_argument("--test", default="data/test-*.tfrecord")
    ap.add_argument("--batch-size", type=int, default=128)
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--base-lr", type=float, default=1e-3)
    ap.add_argument("--warmup-epochs", type=int, default=1)
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--out", default="out/cloudfrac")
    return ap.parse_args()


def main():
    args = get_args()
    rank, size = init_horovod()
    tf.random.set_seed(args.seed)

    train_files = sorted(glob.glob(args.train))
    n_train = count_records(train_files)
    steps = n_train // (args.batch_size * size)
    ds = iter(train_dataset(train_files, args.batch_size, rank, size, args.seed))

    model = build_regressor()
    lr = make_schedule(args.base_lr, size, args.warmup_epochs * steps, args.epochs * steps)
    opt = tf.keras.optimizers.AdamW(learning_rate=lr, weight_decay=1e-4)
    loss_fn = tf.keras.losses.Huber(delta=0.1)

    @tf.function
    def step_fn(x, y, first):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, tf.squeeze(model(x, training=True), -1))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if first:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        return loss

    best = float("inf")
    for epoch in range(args.epochs):
        t0 = time.time()
        total = 0.0
        for s in range(steps):
            x, y = next(ds)
            total += float(step_fn(x, y, epoch == 0 and s == 0))
        # same number of equal batches on every worker: mean of per-worker means is the global mean
        train_loss = float(hvd.allreduce(tf.constant(total / steps), name="train_loss"))
        if rank == 0:
            scores = evaluate_full(model, eval_dataset(sorted(glob.glob(args.test)), 512))
            log.info("epoch %d train_huber %.5f test MAE %.4f RMSE %.4f R2 %.3f (%.0fs)", epoch, train_loss,
                     scores["mae"], scores["rmse"], scores["r2"], time.time() - t0)
            if scores["rmse"] < best:
                best = scores["rmse"]
                os.makedirs(args.out, exist_ok=True)
                model.save_weights(os.path.join(args.out, "best.weights.h5"))


if __name__ == "__main__":
    main()
