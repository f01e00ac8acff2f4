# Simple Baselines for human pose estimation (TF2 port), custom training loop + Horovod.
#
#   horovodrun -np 8 python train_tape.py --tfrecords data/coco_kpt --epochs 140
#
# Records: 256x192 RGB person crops, 17 keypoints (x, y, v) in crop pixels.
import argparse
import os
import time

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd

NUM_KPT = 17
IMG_H, IMG_W = 256, 192
HM_H, HM_W = 64, 48

p = argparse.ArgumentParser()
p.add_argument("--tfrecords", default="data/coco_kpt")
p.add_argument("--batch", type=int, default=32)
p.add_argument("--lr", type=float, default=1e-3)
p.add_argument("--epochs", type=int, default=140)
p.add_argument("--sigma", type=float, default=2.0)
p.add_argument("--ckpt", default="ckpt/simplebaselines")
p.add_argument("--train-samples", type=int, default=149813, help="person instances in train2017")
p.add_argument("--pck-thr", type=float, default=0.2, help="fraction of the torso/box size")
FLAGS = p.parse_args()

hvd.init()
tf.random.set_seed(2024)

FEATURES = {
    "image": tf.io.FixedLenFeature([], tf.string),
    "kpts": tf.io.FixedLenFeature([NUM_KPT * 3], tf.float32),
}


def make_heatmaps(kpts):
    k = tf.reshape(kpts, [NUM_KPT, 3])
    xs = tf.range(HM_W, dtype=tf.float32)[None, None, :]
    ys = tf.range(HM_H, dtype=tf.float32)[None, :, None]
    cx = (k[:, 0] * HM_W / IMG_W)[:, None, None]
    cy = (k[:, 1] * HM_H / IMG_H)[:, None, None]
    hm = tf.exp(-((xs - cx) ** 2 + (ys - cy) ** 2) / (2 * FLAGS.sigma ** 2))
    hm = hm * tf.cast(k[:, 2] > 0, tf.float32)[:, None, None]
    return tf.transpose(hm, [1, 2, 0]), k


def parse(record):
    ex = tf.io.parse_single_example(record, FEATURES)
    img = tf.image.convert_image_dtype(tf.io.decode_jpeg(ex["image"], channels=3), tf.float32)
    img = tf.image.resize(img, [IMG_H, IMG_W])
    hm, k = make_heatmaps(ex["kpts"])
    return img, hm, k


def dataset(split, training):
    files = sorted(tf.io.gfile.glob(os.path.join(FLAGS.tfrecords, f"{split}-*.tfrecord")))
    ds = tf.data.Dataset.from_tensor_slices(files).shard(hvd.size(), hvd.rank())
    ds = ds.interleave(tf.data.TFRecordDataset, cycle_length=4, num_parallel_calls=tf.data.AUTOTUNE)
    ds = ds.map(parse, num_parallel_calls=tf.data.AUTOTUNE)
    if training:
        ds = ds.shuffle(2048).repeat()
    return ds.batch(FLAGS.batch, drop_remainder=training).prefetch(tf.data.AUTOTUNE)


def deconv_head(x):
    for _ in range(3):
        x = tf.keras.layers.Conv2DTranspose(128, 4, strides=2, padding="same", use_bias=False)(x)
        x = tf.keras.layers.BatchNormalization()(x)
        x = tf.keras.layers.ReLU()(x)
    return tf.keras.layers.Conv2D(NUM_KPT, 1)(x)


def build_model():
    inp = tf.keras.Input((IMG_H, IMG_W, 3))
    x = inp
    for f in (32, 64, 128, 256, 256):
        x = tf.keras.layers.Conv2D(f, 3, strides=2, padding="same", use_bias=False)(x)
        x = tf.keras.layers.BatchNormalization()(x)
        x = tf.keras.layers.ReLU()(x)
    return tf.keras.Model(inp, deconv_head(x))


model = build_model()
lr = FLAGS.lr * hvd.size()
optimizer = tf.keras.optimizers.Adam(lr)
mse = tf.keras.losses.MeanSquaredError()

ckpt = tf.train.Checkpoint(model=model, optimizer=optimizer)
manager = tf.train.CheckpointManager(ckpt, FLAGS.ckpt, max_to_keep=3)


@tf.function
def train_step(img, hm, first_batch):
    with tf.GradientTape() as tape:
        loss = mse(hm, model(img, training=True))
    tape = hvd.DistributedGradientTape(tape)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    if first_batch:
        hvd.broadcast_variables(model.variables, root_rank=0)
        hvd.broadcast_variables(optimizer.variables, root_rank=0)
    return loss


def decode(hm):
    b = tf.shape(hm)[0]
    flat = tf.reshape(tf.transpose(hm, [0, 3, 1, 2]), [b, NUM_KPT, -1])
    idx = tf.argmax(flat, -1, output_type=tf.int32)
    x = tf.cast(idx % HM_W, tf.float32) * IMG_W / HM_W
    y = tf.cast(idx // HM_W, tf.float32) * IMG_H / HM_H
    return tf.stack([x, y], -1)


def evaluate(val_ds):
    hits, total = 0.0, 0.0
    for img, _, k in val_ds:
        pred = decode(model(img, training=False)).numpy()
        k = k.numpy()
        vis = k[..., 2] > 0
        scale = np.maximum(k[..., 1].max(1) - k[..., 1].min(1), 1.0)[:, None]
        dist = np.linalg.norm(pred - k[..., :2], axis=-1) / scale
        hits += np.sum((dist < FLAGS.pck_thr) & vis)
        total += np.sum(vis)
    return hits / max(total, 1.0)


train_ds, val_ds = dataset("train", True), dataset("val", False)
steps_per_epoch = FLAGS.train_samples // (FLAGS.batch * hvd.size())
step = 0
for epoch in range(FLAGS.epochs):
    t0 = time.time()
    for img, hm, _ in train_ds.take(steps_per_epoch):
        loss = train_step(img, hm, step == 0)
        step += 1
    pck = evaluate(val_ds)
    if hvd.rank() == 0:
        print(f"epoch {epoch + 1}/{FLAGS.epochs} loss={loss.numpy():.6f} PCK@{FLAGS.pck_thr}={pck:.4f} "
              f"time={time.time() - t0:.0f}s", flush=True)
        manager.save(checkpoint_number=epoch + 1)
