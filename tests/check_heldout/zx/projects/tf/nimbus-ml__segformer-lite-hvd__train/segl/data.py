import glob
import json
import os

import tensorflow as tf

AUTOTUNE = tf.data.AUTOTUNE
TILE = 128

_FEATURES = {
    "image": tf.io.FixedLenFeature([], tf.string),
    "mask": tf.io.FixedLenFeature([], tf.string),
}


def count_examples(split_dir):
    with open(os.path.join(split_dir, "meta.json")) as f:
        return int(json.load(f)["num_examples"])


def _parse(record):
    ex = tf.io.parse_single_example(record, _FEATURES)
    image = tf.io.decode_png(ex["image"], channels=3)
    mask = tf.io.decode_png(ex["mask"], channels=1)
    image = tf.image.resize(image, (TILE, TILE)) / 255.0
    mask = tf.image.resize(mask, (TILE, TILE), method="nearest")
    return image, tf.cast(mask[..., 0], tf.int32)


def _augment(image, mask):
    flip = tf.random.uniform([]) > 0.5
    image = tf.cond(flip, lambda: tf.image.flip_left_right(image), lambda: image)
    mask = tf.cond(flip, lambda: tf.reverse(mask, axis=[1]), lambda: mask)
    return image, mask


def make_dataset(split_dir, batch_size, training, shard=None):
    files = sorted(glob.glob(os.path.join(split_dir, "*.tfrecord")))
    ds = tf.data.Dataset.from_tensor_slices(files)
    if shard is not None:
        num_shards, index = shard
        ds = ds.shard(num_shards, index)
    ds = ds.interleave(tf.data.TFRecordDataset, cycle_length=4,
                       num_parallel_calls=AUTOTUNE, deterministic=not training)
    ds = ds.map(_parse, num_parallel_calls=AUTOTUNE)
    if training:
        ds = ds.map(_augment, num_parallel_calls=AUTOTUNE).shuffle(2048).repeat()
    else:
        ds = ds.cache()
    ds = ds.batch(batch_size, drop_remainder=training).prefetch(AUTOTUNE)
    opts = tf.data.Options()
    opts.experimental_deterministic = not training
    return ds.with_options(opts)
