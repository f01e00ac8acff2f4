#!/usr/bin/env python3
"""Something-Something-v2 (subset) with a mini I3D, TF2 custom loop + Horovod.

The loop follows the usual Horovod TF2 recipe; see README for the numbers.
"""
import os
import sys
import time
import argparse

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

FLAGS = None


def get_flags(argv):
    p = argparse.ArgumentParser()
    p.add_argument("--num_classes", type=int, default=24)
    p.add_argument("--num_videos", type=int, default=480)
    p.add_argument("--num_val", type=int, default=64)
    p.add_argument("--frames", type=int, default=8)
    p.add_argument("--size", type=int, default=32)
    p.add_argument("--global_batch", type=int, default=32,
                   help="total clips per step, split over workers")
    p.add_argument("--lr", type=float, default=0.05, help="lr for global_batch")
    p.add_argument("--warmup_steps", type=int, default=200)
    p.add_argument("--boundaries", type=int, nargs="+", default=[3000, 4500])
    p.add_argument("--train_steps", type=int, default=5000)
    p.add_argument("--eval_every", type=int, default=500)
    p.add_argument("--views", type=int, default=2, help="temporal views at test time")
    p.add_argument("--model_dir", default="/tmp/i3d_ssv2")
    return p.parse_args(argv)


class WarmupPiecewise(tf.keras.optimizers.schedules.LearningRateSchedule):
    def __init__(self, peak, warmup, boundaries):
        self.peak, self.warmup = peak, warmup
        self.decay = tf.keras.optimizers.schedules.PiecewiseConstantDecay(
            boundaries, [peak * 0.1 ** i for i in range(len(boundaries) + 1)])

    def __call__(self, step):
        step = tf.cast(step, tf.float32)
        warm = self.peak * (step + 1.0) / self.warmup
        return tf.where(step < self.warmup, warm, self.decay(step))

    def get_config(self):
        return {"peak": self.peak, "warmup": self.warmup}


def fake_clip(vid, view):
    rs = np.random.RandomState(int(vid) * 13 + int(view))
    return rs.rand(FLAGS.frames, FLAGS.size, FLAGS.size, 3).astype(np.float32)


def input_fn(per_worker_batch):
    ids = tf.data.Dataset.range(FLAGS.num_videos).shard(hvd.size(), hvd.rank())
    ids = ids.shuffle(512, seed=hvd.rank()).repeat()

    def load(v):
        clip = tf.numpy_function(lambda x: fake_clip(x, np.random.randint(8)), [v], tf.float32)
        clip.set_shape((FLAGS.frames, FLAGS.size, FLAGS.size, 3))
        return clip, tf.cast(v % FLAGS.num_classes, tf.int32)

    return ids.map(load, num_parallel_calls=4).batch(per_worker_batch, drop_remainder=True).prefetch(1)


def i3d_mini(num_classes):
    L = tf.keras.layers
    return tf.keras.Sequential([
        L.Input((FLAGS.frames, FLAGS.size, FLAGS.size, 3)),
        L.Conv3D(16, 3, strides=2, padding="same", activation="relu"),
        L.Conv3D(32, 3, strides=2, padding="same"),
        L.BatchNormalization(), L.ReLU(),
        L.GlobalAveragePooling3D(),
        L.Dense(num_classes),
    ])


def evaluate(model):
    correct = 0
    mine = range(hvd.rank(), FLAGS.num_val, hvd.size())
    for vid in mine:
        vid = 100000 + vid
        clips = np.stack([fake_clip(vid, v) for v in range(FLAGS.views)])
        logits = model(clips, training=False)
        correct += int(tf.argmax(tf.reduce_mean(tf.nn.softmax(logits), 0)).numpy() == vid % FLAGS.num_classes)
    stats = hvd.allreduce(tf.constant([correct, len(mine)], tf.float32), op=hvd.Sum)
    return (stats[0] / stats[1]).numpy()


def main():
    hvd.init()
    gpus = tf.config.experimental.list_physical_devices("GPU")
    for gpu in gpus:
        tf.config.experimental.set_memory_growth(gpu, True)
    if gpus:
        tf.config.experimental.set_visible_devices(gpus[hvd.local_rank()], "GPU")

    assert FLAGS.global_batch % hvd.size() == 0, "global batch must divide by the number of workers"
    per_worker = FLAGS.global_batch // hvd.size()
    dataset = input_fn(per_worker)

    model = i3d_mini(FLAGS.num_classes)
    sched = WarmupPiecewise(FLAGS.lr, FLAGS.warmup_steps, FLAGS.boundaries)
    opt = tf.keras.optimizers.SGD(learning_rate=sched, momentum=0.9)
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    ckpt = tf.train.Checkpoint(model=model, optimizer=opt)
    manager = tf.train.CheckpointManager(ckpt, FLAGS.model_dir, max_to_keep=3)

    @tf.function
    def train_step(x, y, first):
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        tape = hvd.DistributedGradientTape(tape)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        if first:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(opt.variables, root_rank=0)
        return loss

    t0 = time.time()
    for step, (x, y) in enumerate(dataset.take(FLAGS.train_steps)):
        loss = train_step(x, y, step == 0)
        if step % 50 == 0 and hvd.rank() == 0:
            print("step %d loss %.4f lr %.5f %.1fs" % (step, loss, sched(step), time.time() - t0))
        if (step + 1) % FLAGS.eval_every == 0:
            acc = evaluate(model)
            if hvd.rank() == 0:
                print("step %d %d-view video acc %.4f" % (step + 1, FLAGS.views, acc))
                manager.save(checkpoint_number=step + 1)


if __name__ == "__main__":
    FLAGS = get_flags(sys.argv[1:])
    main()
