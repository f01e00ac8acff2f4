#!/usr/bin/env python3
"""Person re-ID (Market-1501) with a custom TF2 training loop and Horovod.

Usage:
    horovodrun -np 4 python train.py --data-dir /data/Market-1501-v15.09.15
"""
import argparse
import dataclasses
import glob
import os
import re
import time

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


@dataclasses.dataclass
class Config:
    data_dir: str = 'data/Market-1501-v15.09.15'
    backbone: str = 'weights/mobilenetv2_1.00_224_no_top.weights.h5'
    per_gpu_batch: int = 64
    # global batch grows with the number of GPUs, lr follows it
    global_batch: int = dataclasses.field(default_factory=lambda: 64 * hvd.size())
    base_lr: float = 3.5e-4
    warmup_steps: int = 1000
    decay_steps: tuple = (20000, 35000)
    total_steps: int = 40000
    ckpt_dir: str = 'ckpt/market_mbv2'
    log_every: int = 100


def parse(cfg):
    p = argparse.ArgumentParser()
    p.add_argument('--data-dir', default=cfg.data_dir)
    p.add_argument('--total-steps', type=int, default=cfg.total_steps)
    a = p.parse_args()
    return dataclasses.replace(cfg, data_dir=a.data_dir, total_steps=a.total_steps)


def market_list(folder):
    items = []
    for f in sorted(glob.glob(os.path.join(folder, '*.jpg'))):
        pid = int(re.match(r'(-?\d+)_c', os.path.basename(f)).group(1))
        if pid >= 0:
            items.append((f, pid))
    return items


def load_img(path, label):
    x = tf.image.decode_jpeg(tf.io.read_file(path), 3)
    x = tf.image.resize(x, (256, 128))
    x = tf.image.random_flip_left_right(x)
    return tf.keras.applications.mobilenet_v2.preprocess_input(x), label


def build_model(n_ids, weights):
    base = tf.keras.applications.MobileNetV2(input_shape=(256, 128, 3), include_top=False,
                                             weights=None, pooling='avg')
    if os.path.exists(weights):
        base.load_weights(weights)
    x = tf.keras.Input((256, 128, 3))
    f = tf.keras.layers.BatchNormalization()(base(x))
    logits = tf.keras.layers.Dense(n_ids, use_bias=False)(f)
    return tf.keras.Model(x, [f, logits])


class WarmupPiecewise(tf.keras.optimizers.schedules.LearningRateSchedule):
    def __init__(self, lr, warmup, bounds):
        self.lr, self.warmup, self.bounds = lr, warmup, bounds

    def __call__(self, step):
        step = tf.cast(step, tf.float32)
        decay = tf.pow(0.1, tf.reduce_sum(tf.cast(step >= tf.constant(self.bounds, tf.float32), tf.float32)))
        return self.lr * decay * tf.minimum(1.0, (step + 1) / self.warmup)


def main():
    cfg = parse(Config())
    hvd.init()
    gpus = tf.config.experimental.list_physical_devices('GPU')
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], 'GPU')

    items = market_list(os.path.join(cfg.data_dir, 'bounding_box_train'))
    pids = sorted({p for _, p in items})
    remap = {p: i for i, p in enumerate(pids)}
    paths = [f for f, _ in items]
    labels = [remap[p] for _, p in items]
    ds = (tf.data.Dataset.from_tensor_slices((paths, labels))
          .shard(hvd.size(), hvd.rank())
          .shuffle(4096, reshuffle_each_iteration=True)
          .repeat()
          .map(load_img, num_parallel_calls=tf.data.AUTOTUNE)
          .batch(cfg.global_batch // hvd.size(), drop_remainder=True)
          .prefetch(tf.data.AUTOTUNE))

    model = build_model(len(pids), cfg.backbone)
    lr = WarmupPiecewise(cfg.base_lr * cfg.global_batch / 64, cfg.warmup_steps, list(cfg.decay_steps))
    opt = tf.keras.optimizers.Adam(lr)
    ce = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
    manager = tf.train.CheckpointManager(ckpt, cfg.ckpt_dir, max_to_keep=3)

    @tf.function
    def train_step(x, y, first_batch):
        with tf.GradientTape() as tape:
            feat, logits = model(x, training=True)
            d = tf.norm(feat[:, None] - feat[None], axis=-1)
            same = tf.cast(tf.equal(y[:, None], y[None, :]), tf.float32)
            tri = tf.reduce_mean(tf.nn.relu(tf.reduce_max(d * same, 1) - tf.reduce_min(d + 1e5 * same, 1) + 0.3))
            loss = ce(y, logits) + tri
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if first_batch:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        return loss

    t0 = time.time()
    for step, (x, y) in enumerate(ds.take(cfg.total_steps)):
        loss = train_step(x, y, step == 0)
        if step % cfg.log_every == 0:
            avg = hvd.allreduce(loss, op=hvd.Average)
            if hvd.rank() == 0:
                print('step %6d  loss %.4f  lr %.2e  %.1f img/s' % (
                    step, avg, lr(step), cfg.global_batch * (step + 1) / (time.time() - t0)))
        if hvd.rank() == 0 and step > 0 and step % 5000 == 0:
            manager.save(checkpoint_number=step)
    if hvd.rank() == 0:
        manager.save(checkpoint_number=cfg.total_steps)


if __name__ == '__main__':
    main()
