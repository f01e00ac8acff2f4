# -*- coding: utf-8 -*-
"""
Precipitation nowcasting (radar frames -> next frame), TF2 + Horovod, GradientTape.

Jobs on our cluster are capped at 24h. The script trains until --time-budget (minutes) is almost
used, writes a tf.train.Checkpoint (rank 0) and exits with status 3; the batch script resubmits it and
the next run restores the latest checkpoint.
"""
import argparse
import os
import sys
import time

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

RESUBMIT = 3


def parse_args(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--frames", default="data/radar_frames.npy", help="(T, H, W) float array")
    p.add_argument("--history", type=int, default=4)
    p.add_argument("--global-batch", type=int, default=64)
    p.add_argument("--lr", type=float, default=1e-3, help="lr for the global batch")
    p.add_argument("--steps", type=int, default=20000)
    p.add_argument("--eval-every", type=int, default=500)
    p.add_argument("--ckpt-dir", default="ckpt")
    p.add_argument("--time-budget", type=float, default=23 * 60, help="minutes")
    return p.parse_args(argv)


def build_model(history):
    inp = tf.keras.Input(shape=(None, None, history))
    x1 = tf.keras.layers.Conv2D(32, 3, padding="same", activation="relu")(inp)
    x2 = tf.keras.layers.Conv2D(64, 3, strides=2, padding="same", activation="relu")(x1)
    x2 = tf.keras.layers.Conv2D(64, 3, padding="same", activation="relu")(x2)
    up = tf.keras.layers.UpSampling2D()(x2)
    x = tf.keras.layers.Concatenate()([up, x1])
    x = tf.keras.layers.Conv2D(32, 3, padding="same", activation="relu")(x)
    out = tf.keras.layers.Conv2D(1, 1)(x)
    return tf.keras.Model(inp, out)


def windows(frames, history):
    idx = np.arange(history, len(frames))
    x = np.stack([np.moveaxis(frames[i - history:i], 0, -1) for i in idx])
    y = frames[idx][..., None]
    return x.astype("float32"), y.astype("float32")


def main():
    args = parse_args()
    t_start = time.time()
    hvd.init()

    for gpu in tf.config.experimental.list_physical_devices("GPU"):
        tf.config.experimental.set_memory_growth(gpu, True)
    gpus = tf.config.experimental.list_physical_devices("GPU")
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    frames = np.load(args.frames)
    x, y = windows(frames, args.history)
    split = int(0.9 * len(x))
    per_rank = args.global_batch // hvd.size()

    train = (tf.data.Dataset.from_tensor_slices((x[:split], y[:split]))
             .shard(num_shards=hvd.size(), index=hvd.rank())
             .repeat().shuffle(2048).batch(per_rank, drop_remainder=True)
             .prefetch(tf.data.AUTOTUNE))
    # validation: the last 10% of frames, evaluated whole by every rank
    val = tf.data.Dataset.from_tensor_slices((x[split:], y[split:])).batch(16)

    model = build_model(args.history)
    opt = tf.keras.optimizers.Adam(args.lr)
    step = tf.Variable(0, dtype=tf.int64, trainable=False)
    ckpt = tf.train.Checkpoint(model=model, optimizer=opt, step=step)
    manager = tf.train.CheckpointManager(ckpt, args.ckpt_dir, max_to_keep=3)
    if manager.latest_checkpoint:
        ckpt.restore(manager.latest_checkpoint)   # same file on every rank
        if hvd.rank() == 0:
            print(f"restored {manager.latest_checkpoint} at step {int(step)}", flush=True)

    mse = tf.keras.losses.MeanSquaredError()

    @tf.function
    def train_step(xb, yb, first):
        with tf.GradientTape() as tape:
            loss = mse(yb, model(xb, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if first:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        return loss

    def evaluate():
        total, n = 0.0, 0
        for xb, yb in val:
            total += float(mse(yb, model(xb, training=False))) * int(xb.shape[0])
            n += int(xb.shape[0])
        return total / max(n, 1)

    budget_s = args.time_budget * 60
    first = True
    for xb, yb in train:
        loss = train_step(xb, yb, tf.constant(first))
        first = False
        step.assign_add(1)
        s = int(step)
        if s % args.eval_every == 0:
            val_mse = evaluate()
            if hvd.rank() == 0:
                print(f"step {s}: train {float(loss):.5f} val {val_mse:.5f}", flush=True)
                manager.save(checkpoint_number=s)
        if s >= args.steps:
            break
        # all ranks agree on the elapsed time of rank 0, so they stop at the same step
        elapsed = hvd.broadcast_object(time.time() - t_start, root_rank=0) if s % 50 == 0 else 0.0
        if elapsed > budget_s:
            if hvd.rank() == 0:
                manager.save(checkpoint_number=s)
                print(f"time budget reached at step {s}; exiting for resubmission", flush=True)
            sys.exit(RESUBMIT)

    if hvd.rank() == 0:
        manager.save(checkpoint_number=int(step))
        model.save(os.path.join(args.ckpt_dir, "final.keras"))


if __name__ == "__main__":
    main()
