#!/usr/bin/env python3
"""Keyword spotting (12 commands) with a DS-CNN on precomputed log-mel features.

    horovodrun -np 4 python train_kws.py --features data/speech_commands_logmel.npz
"""
import argparse
import time

import tensorflow as tf
import horovod.tensorflow as hvd

from kws import common
from kws.features import load_features, spec_augment
from kws.metrics import Meter, global_accuracy
from kws.model import ds_cnn


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--features", default="data/speech_commands_logmel.npz")
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--batch", type=int, default=100, help="per worker")
    ap.add_argument("--lr", type=float, default=5e-4)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ckpt-dir", default="ckpt/kws")
    return ap.parse_args()


def main():
    args = parse()
    common.init_horovod()
    common.seed_all(args.seed)

    feats = load_features(args.features)
    tr_idx = common.worker_indices(len(feats["y_train"]))
    train_ds = (tf.data.Dataset.from_tensor_slices((feats["x_train"][tr_idx], feats["y_train"][tr_idx]))
                .shuffle(10000).batch(args.batch, drop_remainder=True)
                .map(spec_augment, num_parallel_calls=tf.data.AUTOTUNE).prefetch(2))
    val_ds = (tf.data.Dataset.from_tensor_slices((feats["x_val"], feats["y_val"]))
              .shard(hvd.size(), hvd.rank()).batch(500))

    model = ds_cnn(n_classes=12, input_shape=feats["x_train"].shape[1:])
    opt = tf.keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    ckpt = tf.train.Checkpoint(model=model, optimizer=opt, epoch=tf.Variable(0))
    manager = tf.train.CheckpointManager(ckpt, args.ckpt_dir, max_to_keep=3)
    if manager.latest_checkpoint:
        ckpt.restore(manager.latest_checkpoint)
        common.log(f"resumed from {manager.latest_checkpoint}")

    @tf.function
    def train_step(x, y, first_batch):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        return loss

    first = True
    for epoch in range(int(ckpt.epoch.numpy()), args.epochs):
        meter, t0 = Meter(), time.time()
        for x, y in train_ds:
            meter.update(train_step(x, y, first).numpy())
            first = False
        acc = global_accuracy(model, val_ds)
        common.log(f"epoch {epoch} loss {meter.mean:.4f} val_acc {acc:.4f} ({time.time() - t0:.1f}s)")
        ckpt.epoch.assign(epoch + 1)
        manager.save()


if __name__ == "__main__":
    main()
