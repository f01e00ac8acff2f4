"""PointNet classification on ModelNet40, data parallel with Horovod (GradientTape loop).

    horovodrun -np 4 python train.py --data /scratch/modelnet40_tfrecords --epochs 250
"""
import argparse
import os
import time

import tensorflow as tf
from tensorflow import keras
import horovod.tensorflow as hvd

from data.pipeline import get_dataset
from models import PointNet
from utils.setup import log, setup_horovod


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="/scratch/modelnet40_tfrecords")
    p.add_argument("--epochs", type=int, default=250)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--num-points", type=int, default=1024)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--logdir", default="logs/pointnet")
    return p.parse_args()


def main():
    args = parse_args()
    setup_horovod(seed=42)

    train_ds = get_dataset(os.path.join(args.data, "train-*.tfrecord"), args.batch_size,
                           args.num_points, training=True)
    test_ds = get_dataset(os.path.join(args.data, "test-*.tfrecord"), args.batch_size,
                          args.num_points, training=False)

    model = PointNet(num_classes=40)
    schedule = keras.optimizers.schedules.ExponentialDecay(args.lr * hvd.size(), decay_steps=20_000,
                                                           decay_rate=0.7, staircase=True)
    optimizer = keras.optimizers.Adam(schedule)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    train_loss = keras.metrics.Mean()
    train_acc = keras.metrics.SparseCategoricalAccuracy()
    test_acc = keras.metrics.SparseCategoricalAccuracy()

    @tf.function
    def train_step(points, labels, first_batch):
        with tf.GradientTape() as tape:
            logits = model(points, training=True)
            loss = loss_fn(labels, logits) + tf.add_n(model.losses)
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(optimizer.variables, root_rank=0)
        train_loss.update_state(loss)
        train_acc.update_state(labels, logits)

    @tf.function
    def test_step(points, labels):
        test_acc.update_state(labels, model(points, training=False))

    writer = tf.summary.create_file_writer(args.logdir) if hvd.rank() == 0 else None
    best = 0.0
    first = True
    for epoch in range(args.epochs):
        t0 = time.time()
        for m in (train_loss, train_acc, test_acc):
            m.reset_state()
        for points, labels in train_ds:
            train_step(points, labels, first)
            first = False
        for points, labels in test_ds:
            test_step(points, labels)

        # Horovod: combine the workers' numbers
        loss = hvd.allreduce(train_loss.result(), name="train_loss")
        acc = hvd.allreduce(train_acc.result(), name="train_acc")
        val_acc = hvd.allreduce(test_acc.result(), op=hvd.Sum, name="test_acc")
        log(f"epoch {epoch:3d} loss {float(loss):.4f} train acc {float(acc):.4f} "
            f"test acc {float(val_acc):.4f} ({time.time() - t0:.0f}s)")
        if writer is not None:
            with writer.as_default():
                tf.summary.scalar("train/loss", loss, step=epoch)
                tf.summary.scalar("test/accuracy", val_acc, step=epoch)
        if hvd.rank() == 0 and float(val_acc) > best:
            best = float(val_acc)
            model.save_weights(os.path.join(args.logdir, "best.weights.h5"))


if __name__ == "__main__":
    main()
