"""CS7643 A3 extra credit: the tape training loop from Q2, data-parallel with Horovod."""
import argparse
import os

import tensorflow as tf
import keras
import horovod.tensorflow as hvd

from a3.data import fashion_mnist
from a3.model import SmallCNN
from common.dist import global_sum, init_workers, sync_weights
from common.logger import RankZeroLogger

GLOBAL_BATCH = 512
LEARNING_RATE = 1e-3   # tuned for GLOBAL_BATCH on one GPU; the global batch stays the same on N GPUs


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=12)
    p.add_argument("--ckpt-dir", default="ckpts/a3")
    p.add_argument("--csv", default="logs/a3_curve.csv")
    return p.parse_args()


def main():
    args = get_args()
    rank, world = init_workers()
    log = RankZeroLogger(rank, args.csv)

    train_ds, test_ds = fashion_mnist(GLOBAL_BATCH // world, world, rank)
    model = SmallCNN()
    opt = keras.optimizers.Adam(LEARNING_RATE)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    model(tf.zeros((1, 28, 28, 1)))
    opt.build(model.trainable_variables)

    ckpt = tf.train.Checkpoint(model=model, opt=opt, epoch=tf.Variable(0, dtype=tf.int64))
    manager = tf.train.CheckpointManager(ckpt, args.ckpt_dir, max_to_keep=2)
    if manager.latest_checkpoint:
        ckpt.restore(manager.latest_checkpoint)
        log.info(f"restored {manager.latest_checkpoint}")
    sync_weights(model, opt)

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    for epoch in range(int(ckpt.epoch.numpy()), args.epochs):
        for step, (x, y) in enumerate(train_ds):
            loss = train_step(x, y)
        correct = count = 0
        for x, y in test_ds:
            pred = tf.argmax(model(x, training=False), axis=1)
            correct += int(tf.reduce_sum(tf.cast(pred == y, tf.int32)))
            count += int(y.shape[0])
        tot_correct, tot_count = global_sum([correct, count]).numpy()
        acc = tot_correct / tot_count
        log.info(f"epoch {epoch}: loss {float(loss):.4f} test acc {acc:.4f}")
        log.row(epoch=epoch, loss=float(loss), test_acc=acc)
        ckpt.epoch.assign(epoch + 1)
        if rank == 0:
            manager.save()


if __name__ == "__main__":
    main()
