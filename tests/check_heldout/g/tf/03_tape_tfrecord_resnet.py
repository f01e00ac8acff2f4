#!/usr/bin/env python
# ResNet-50 on ImageNet TFRecords (the shards written by the usual build_imagenet_data script),
# TF2 custom loop, Horovod allreduce.  SLURM: srun --mpi=pmix python 03_tape_tfrecord_resnet.py ...
import argparse
import glob
import logging
import os
import time

import tensorflow as tf
import horovod.tensorflow as hvd

hvd.init()

logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.WARNING,
                    format="[%(asctime)s r{}] %(message)s".format(hvd.rank()))
log = logging.getLogger(__name__)

ap = argparse.ArgumentParser()
ap.add_argument("--data-dir", default="/lustre/datasets/imagenet/tfrecords")
ap.add_argument("--batch-size", type=int, default=64)
ap.add_argument("--epochs", type=int, default=90)
ap.add_argument("--base-lr", type=float, default=0.1)
ap.add_argument("--wd", type=float, default=1e-4)
ap.add_argument("--model-dir", default="./resnet50_hvd")
ap.add_argument("--fp16-allreduce", action="store_true")
args = ap.parse_args()

gpus = tf.config.experimental.list_physical_devices("GPU")
for gpu in gpus:
    tf.config.experimental.set_memory_growth(gpu, True)
if gpus:
    tf.config.experimental.set_visible_devices(gpus[hvd.rank()], "GPU")

IMG = 224
FEATURES = {
    "image/encoded": tf.io.FixedLenFeature([], tf.string),
    "image/class/label": tf.io.FixedLenFeature([], tf.int64),
}


def parse_example(serialized, training):
    ex = tf.io.parse_single_example(serialized, FEATURES)
    img = tf.io.decode_jpeg(ex["image/encoded"], channels=3)
    img = tf.image.convert_image_dtype(img, tf.float32)
    if training:
        img = tf.image.random_crop(tf.image.resize(img, [256, 256]), [IMG, IMG, 3])
        img = tf.image.random_flip_left_right(img)
    else:
        img = tf.image.resize(img, [IMG, IMG])
    label = tf.cast(ex["image/class/label"], tf.int32) - 1
    return img, label


def make_dataset(pattern, training):
    files = tf.data.Dataset.list_files(pattern, shuffle=False)
    files.shard(hvd.size(), hvd.rank())
    if training:
        files = files.shuffle(1024, reshuffle_each_iteration=True)
    ds = files.interleave(tf.data.TFRecordDataset, cycle_length=8,
                          num_parallel_calls=tf.data.AUTOTUNE)
    if training:
        ds = ds.shuffle(10000)
    ds = ds.map(lambda s: parse_example(s, training), num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(args.batch_size, drop_remainder=training).prefetch(tf.data.AUTOTUNE)


train_ds = make_dataset(os.path.join(args.data_dir, "train-*"), training=True)
val_files = sorted(glob.glob(os.path.join(args.data_dir, "validation-*")))
val_ds = tf.data.TFRecordDataset(val_files).shard(hvd.size(), hvd.rank())
val_ds = val_ds.map(lambda s: parse_example(s, False)).batch(args.batch_size)

steps_per_epoch = 1281167 // (args.batch_size * hvd.size())

# Goyal et al.: lr = 0.1 * global_batch / 256, step decay at 30/60/80
peak_lr = args.base_lr * args.batch_size * hvd.size() / 256.0
schedule = tf.keras.optimizers.schedules.PiecewiseConstantDecay(
    boundaries=[30 * steps_per_epoch, 60 * steps_per_epoch, 80 * steps_per_epoch],
    values=[peak_lr, peak_lr * 0.1, peak_lr * 0.01, peak_lr * 0.001])
optimizer = tf.keras.optimizers.SGD(learning_rate=schedule, momentum=0.9, nesterov=True)

model = tf.keras.applications.ResNet50(weights=None, classes=1000)
loss_obj = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=False)
compression = hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none

train_loss = tf.keras.metrics.Mean()
train_acc = tf.keras.metrics.SparseCategoricalAccuracy()
val_loss = tf.keras.metrics.Mean()
val_acc = tf.keras.metrics.SparseCategoricalAccuracy()


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        probs = model(x, training=True)
        loss = loss_obj(y, probs)
        l2 = tf.add_n([tf.nn.l2_loss(v) for v in model.trainable_variables if "kernel" in v.name])
        total = loss + args.wd * l2
    tape = hvd.DistributedGradientTape(tape, compression=compression)
    grads = tape.gradient(total, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    train_loss.update_state(loss)
    train_acc.update_state(y, probs)


@tf.function
def val_step(x, y):
    probs = model(x, training=False)
    val_loss.update_state(loss_obj(y, probs))
    val_acc.update_state(y, probs)


ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer, epoch=tf.Variable(0))
manager = tf.train.CheckpointManager(ckpt, args.model_dir, max_to_keep=5)
if manager.latest_checkpoint:
    ckpt.restore(manager.latest_checkpoint)
    log.info("resumed from %s", manager.latest_checkpoint)

global_step = 0
start_epoch = int(ckpt.epoch.numpy())
for epoch in range(start_epoch, args.epochs):
    for m in (train_loss, train_acc, val_loss, val_acc):
        m.reset_states()
    tic = time.time()
    for x, y in train_ds:
        train_step(x, y)
        if global_step == 0:
            hvd.broadcast_variables(model.variables, root_rank=0)
            hvd.broadcast_variables(optimizer.variables(), root_rank=0)
        global_step += 1

    for x, y in val_ds:
        val_step(x, y)

    results = [hvd.allreduce(m.result(), name=n) for n, m in
               (("tl", train_loss), ("ta", train_acc), ("vl", val_loss), ("va", val_acc))]
    log.info("epoch %d: train loss %.4f acc %.4f | val loss %.4f acc %.4f | %.0f img/s",
             epoch, *[float(r) for r in results],
             steps_per_epoch * args.batch_size * hvd.size() / (time.time() - tic))

    ckpt.epoch.assign(epoch + 1)
    if hvd.rank() == 0:
        manager.save()
