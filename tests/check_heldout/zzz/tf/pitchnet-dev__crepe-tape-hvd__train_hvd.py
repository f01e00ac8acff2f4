#!/usr/bin/env python
# CREPE-style monophonic pitch tracker (1024-sample frames @ 16 kHz -> 360 cent bins),
# custom GradientTape loop, Horovod for multi-GPU.
#
#   mpirun -np 4 python train_hvd.py --tfrecords /data/mdb-stem-synth/tfrecords
import argparse
import glob
import os
import time

import numpy as np
import tensorflow as tf
import keras
import horovod.tensorflow as hvd

CENTS = 20.0 * np.arange(360) + 1997.3794084376191

p = argparse.ArgumentParser()
p.add_argument("--tfrecords", default="/data/mdb-stem-synth/tfrecords")
p.add_argument("--model-dir", default="./crepe_ckpt")
p.add_argument("--capacity", type=int, default=16, help="CREPE capacity multiplier (32 = full)")
p.add_argument("--batch", type=int, default=32)
p.add_argument("--lr", type=float, default=2e-4)
p.add_argument("--epochs", type=int, default=32)
p.add_argument("--steps", type=int, default=500, help="steps per epoch")
args = p.parse_args()

hvd.init()
for gpu in tf.config.experimental.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(gpu, True)


def parse(record):
    ex = tf.io.parse_single_example(record, {"audio": tf.io.FixedLenFeature([1024], tf.float32),
                                             "f0": tf.io.FixedLenFeature([], tf.float32)})
    audio = ex["audio"] - tf.reduce_mean(ex["audio"])
    audio = audio / tf.maximum(tf.math.reduce_std(audio), 1e-8)
    cents = 1200.0 * tf.math.log(ex["f0"] / 10.0) / tf.math.log(2.0)
    target = tf.exp(-((CENTS.astype("float32") - cents) ** 2) / (2 * 25.0 ** 2))  # gaussian-blurred bins
    return audio, target, cents


def dataset(pattern, training):
    files = sorted(glob.glob(pattern))
    ds = tf.data.TFRecordDataset(files, num_parallel_reads=4)
    ds = ds.shard(hvd.size(), hvd.rank())
    ds = ds.map(parse, num_parallel_calls=tf.data.AUTOTUNE)
    if training:
        ds = ds.shuffle(20000).repeat()
    return ds.batch(args.batch, drop_remainder=training).prefetch(2)


def crepe(capacity):
    filters = [n * capacity for n in (32, 4, 4, 4, 8, 16)]
    widths, strides = [512, 64, 64, 64, 64, 64], [4, 1, 1, 1, 1, 1]
    x = inp = keras.Input((1024,))
    x = keras.layers.Reshape((1024, 1, 1))(x)
    for f, w, s in zip(filters, widths, strides):
        x = keras.layers.Conv2D(f, (w, 1), strides=(s, 1), padding="same", activation="relu")(x)
        x = keras.layers.BatchNormalization()(x)
        x = keras.layers.MaxPooling2D((2, 1))(x)
        x = keras.layers.Dropout(0.25)(x)
    x = keras.layers.Flatten()(keras.layers.Permute((2, 1, 3))(x))
    return keras.Model(inp, keras.layers.Dense(360, activation="sigmoid")(x))


train_ds = dataset(os.path.join(args.tfrecords, "train-*.tfrecord"), training=True)
valid_ds = dataset(os.path.join(args.tfrecords, "valid-*.tfrecord"), training=False)

model = crepe(args.capacity)
opt = keras.optimizers.Adam(learning_rate=args.lr * hvd.size())
bce = keras.losses.BinaryCrossentropy()

ckpt = tf.train.Checkpoint(model=model, optimizer=opt, epoch=tf.Variable(0, dtype=tf.int64))
manager = tf.train.CheckpointManager(ckpt, args.model_dir, max_to_keep=3)
if manager.latest_checkpoint:
    ckpt.restore(manager.latest_checkpoint)


@tf.function
def train_step(audio, target, first_batch):
    with tf.GradientTape() as tape:
        loss = bce(target, model(audio, training=True))
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables))
    if first_batch:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(opt.variables, root_rank=0)
    return loss


@tf.function
def eval_step(audio, cents):
    salience = model(audio, training=False)
    center = tf.argmax(salience, axis=1)
    est = tf.gather(tf.constant(CENTS, tf.float32), center)
    hit = tf.cast(tf.abs(est - cents) <= 50.0, tf.float32)
    return tf.reduce_sum(hit), tf.cast(tf.size(hit), tf.float32)


train_iter = iter(train_ds)
start = int(ckpt.epoch.numpy())
for epoch in range(start, args.epochs):
    t0 = time.time()
    for step in range(args.steps):
        audio, target, _ = next(train_iter)
        loss = train_step(audio, target, epoch == start and step == 0)
        if step % 100 == 0 and hvd.rank() == 0:
            print(f"epoch {epoch} step {step} loss {loss.numpy():.4f}")

    hits, count = 0.0, 0.0
    for audio, _, cents in valid_ds:
        h, c = eval_step(audio, cents)
        hits, count = hits + h, count + c
    totals = hvd.allreduce(tf.stack([hits, count]), op=hvd.Sum)
    rpa = float(totals[0] / totals[1])

    ckpt.epoch.assign(epoch + 1)
    manager.save()
    if hvd.rank() == 0:
        print(f"epoch {epoch}: raw pitch accuracy {rpa:.4f} ({time.time() - t0:.0f}s)")
