"""Fashion-MNIST custom training loop, Horovod edition.

Was: MirroredStrategy recipe. Run with
    horovodrun -np 4 python train_ctl.py --global_batch_size 512
"""
import argparse
import os
import time

import tensorflow as tf

from recipes import HorovodStrategy
from recipes.inputs import make_input_fn
from recipes.models import build_cnn
from recipes.loop import make_steps


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--global_batch_size", type=int, default=512)
    p.add_argument("--learning_rate", type=float, default=1e-3)
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--model_dir", default="/tmp/fmnist_ctl")
    return p.parse_args()


def main():
    args = parse_args()
    strategy = HorovodStrategy()
    n_rep = strategy.num_replicas_in_sync

    train_ds = strategy.distribute_datasets_from_function(
        make_input_fn("train", args.global_batch_size))
    test_ds = strategy.distribute_datasets_from_function(
        make_input_fn("test", args.global_batch_size))
    steps_per_epoch = 60000 // args.global_batch_size

    model = build_cnn()
    # global batch is fixed, so the single-device learning rate is kept
    optimizer = tf.keras.optimizers.Adam(args.learning_rate)
    train_step, eval_step, metrics = make_steps(
        model, optimizer, args.global_batch_size)

    ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer,
                               epoch=tf.Variable(0, dtype=tf.int64))
    manager = tf.train.CheckpointManager(ckpt, os.path.join(args.model_dir, "ckpt"),
                                         max_to_keep=3)
    writer = tf.summary.create_file_writer(args.model_dir) if strategy.is_chief \
        else tf.summary.create_noop_writer()

    it = iter(train_ds)
    first = True
    for epoch in range(args.epochs):
        t0 = time.time()
        for m in metrics:
            m.reset_state()
        for _ in range(steps_per_epoch):
            x, y = next(it)
            train_step(x, y, first)
            first = False

        correct = total = 0.0
        for x, y in test_ds:
            c, t = eval_step(x, y)
            correct += c
            total += t
        correct = strategy.reduce("SUM", correct)
        total = strategy.reduce("SUM", total)
        test_acc = float(correct / total)
        train_loss = float(strategy.reduce("MEAN", metrics[0].result()))
        train_acc = float(strategy.reduce("MEAN", metrics[1].result()))

        if strategy.is_chief:
            with writer.as_default():
                tf.summary.scalar("train/loss", train_loss, step=epoch)
                tf.summary.scalar("train/acc", train_acc, step=epoch)
                tf.summary.scalar("test/acc", test_acc, step=epoch)
            ckpt.epoch.assign(epoch + 1)
            manager.save()
            print(f"epoch {epoch} loss={train_loss:.4f} acc={train_acc:.4f} "
                  f"test_acc={test_acc:.4f} ({time.time() - t0:.1f}s, {n_rep} replicas)")


if __name__ == "__main__":
    main()
