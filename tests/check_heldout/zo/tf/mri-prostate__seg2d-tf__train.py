#!/usr/bin/env python3
"""Prostate zonal segmentation on T2w MRI slices (2D), TF2 custom loop + Horovod.

Data: one .npz per case in --data with `t2` (S, H, W) float32 and `zones` (S, H, W) uint8
(0 background, 1 peripheral zone, 2 transition zone).
"""
import argparse
import glob
import os
from dataclasses import dataclass

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


@dataclass
class Config:
    data: str = "data/prostate_npz"
    size: int = 192
    batch: int = 8          # slices per worker and step
    lr: float = 2e-4
    epochs: int = 60
    val_cases: int = 6
    ckpt_dir: str = "ckpt/prostate2d"
    seed: int = 2024


def parse() -> Config:
    cfg = Config()
    ap = argparse.ArgumentParser()
    for k, v in vars(cfg).items():
        ap.add_argument("--" + k.replace("_", "-"), type=type(v), default=v)
    return Config(**vars(ap.parse_args()))


def load_slices(files, size):
    xs, ys = [], []
    for f in files:
        z = np.load(f)
        keep = z["zones"].reshape(len(z["zones"]), -1).any(1)
        xs.append(z["t2"][keep])
        ys.append(z["zones"][keep])
    x = tf.image.resize(np.concatenate(xs)[..., None], (size, size)).numpy()
    y = tf.image.resize(np.concatenate(ys)[..., None], (size, size), method="nearest").numpy()
    x = (x - x.mean(axis=(1, 2, 3), keepdims=True)) / (x.std(axis=(1, 2, 3), keepdims=True) + 1e-6)
    return x.astype(np.float32), y[..., 0].astype(np.int32)


def unet(size, n_classes=3, base=32):
    L = tf.keras.layers
    inp = tf.keras.Input((size, size, 1))
    skips, x = [], inp
    for i in range(4):
        x = L.Conv2D(base * 2 ** i, 3, padding="same", activation="relu")(x)
        x = L.Conv2D(base * 2 ** i, 3, padding="same", activation="relu")(x)
        skips.append(x)
        x = L.MaxPool2D()(x)
    x = L.Conv2D(base * 16, 3, padding="same", activation="relu")(x)
    for i in reversed(range(4)):
        x = L.Conv2DTranspose(base * 2 ** i, 2, strides=2)(x)
        x = L.Concatenate()([x, skips[i]])
        x = L.Conv2D(base * 2 ** i, 3, padding="same", activation="relu")(x)
    return tf.keras.Model(inp, L.Conv2D(n_classes, 1)(x))


def dice_ce_loss(y, logits, n_classes=3):
    ce = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(y, logits))
    p = tf.nn.softmax(logits)
    oh = tf.one_hot(y, n_classes)
    inter = tf.reduce_sum(p * oh, (0, 1, 2))
    dice = (2 * inter + 1) / (tf.reduce_sum(p + oh, (0, 1, 2)) + 1)
    return ce + 1 - tf.reduce_mean(dice[1:])


def main():
    cfg = parse()
    hvd.init()
    gpus = tf.config.list_physical_devices("GPU")
    for g in gpus:
        tf.config.experimental.set_memory_growth(g, True)
    if gpus:
        tf.config.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    cases = sorted(glob.glob(os.path.join(cfg.data, "*.npz")))
    rng = np.random.RandomState(cfg.seed)
    rng.shuffle(cases)
    x_tr, y_tr = load_slices(cases[cfg.val_cases:], cfg.size)
    x_va, y_va = load_slices(cases[:cfg.val_cases], cfg.size)

    train = (tf.data.Dataset.from_tensor_slices((x_tr, y_tr))
             .shard(hvd.size(), hvd.rank())
             .shuffle(2048, seed=cfg.seed)
             .repeat()
             .batch(cfg.batch, drop_remainder=True)
             .prefetch(tf.data.AUTOTUNE))
    val = tf.data.Dataset.from_tensor_slices((x_va, y_va)).shard(hvd.size(), hvd.rank()).batch(16)
    steps_per_epoch = len(x_tr) // (cfg.batch * hvd.size())

    model = unet(cfg.size)
    opt = tf.keras.optimizers.Adam(cfg.lr * hvd.size())
    ckpt = tf.train.Checkpoint(model=model, opt=opt)
    manager = tf.train.CheckpointManager(ckpt, cfg.ckpt_dir, max_to_keep=2)

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = dice_ce_loss(y, model(x, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    it = iter(train)
    x0, y0 = next(it)
    train_step(x0, y0)
    # every worker has built its variables now; take rank 0's
    hvd.broadcast_variables(model.variables, root_rank=0)
    hvd.broadcast_variables(opt.variables, root_rank=0)

    best = 0.0
    for epoch in range(cfg.epochs):
        losses = [float(train_step(*next(it))) for _ in range(steps_per_epoch)]
        inter = np.zeros(3, np.float64)
        denom = np.zeros(3, np.float64)
        for x, y in val:
            pred = tf.argmax(model(x, training=False), -1, output_type=tf.int32)
            for c in (1, 2):
                p, t = tf.equal(pred, c), tf.equal(y, c)
                inter[c] += float(tf.reduce_sum(tf.cast(p & t, tf.float32)))
                denom[c] += float(tf.reduce_sum(tf.cast(p, tf.float32)) + tf.reduce_sum(tf.cast(t, tf.float32)))
        inter = hvd.allreduce(tf.constant(inter), op=hvd.Sum, name="inter").numpy()
        denom = hvd.allreduce(tf.constant(denom), op=hvd.Sum, name="denom").numpy()
        dice = 2 * inter[1:] / np.maximum(denom[1:], 1)
        if hvd.rank() == 0:
            print(f"epoch {epoch + 1:03d} loss {np.mean(losses):.4f} dice PZ {dice[0]:.4f} TZ {dice[1]:.4f}")
            if dice.mean() > best:
                best = dice.mean()
                manager.save(checkpoint_number=epoch)


if __name__ == "__main__":
    main()
