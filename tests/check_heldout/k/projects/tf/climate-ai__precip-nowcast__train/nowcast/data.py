import glob
import os

import tensorflow as tf

from .augment import drop_empty, random_dihedral

FEATURES = {
    "frames": tf.io.FixedLenFeature([], tf.string),
    "target": tf.io.FixedLenFeature([], tf.string),
}


def _parse(example, in_steps, out_steps, size):
    ex = tf.io.parse_single_example(example, FEATURES)
    x = tf.reshape(tf.io.decode_raw(ex["frames"], tf.uint8), (in_steps, size, size, 1))
    y = tf.reshape(tf.io.decode_raw(ex["target"], tf.uint8), (size, size, out_steps))
    # radar reflectivity in 0.5 dBZ steps -> rain-rate proxy in [0, 1]
    return tf.cast(x, tf.float32) / 255.0, tf.cast(y, tf.float32) / 255.0


def make_datasets(cfg, rank, size):
    train_files = sorted(glob.glob(os.path.join(cfg["data_dir"], "train-*.tfrecord")))
    val_files = sorted(glob.glob(os.path.join(cfg["data_dir"], "val-*.tfrecord")))
    parse = lambda e: _parse(e, cfg["in_steps"], cfg["out_steps"], cfg["size"])  # noqa: E731

    train = tf.data.Dataset.from_tensor_slices(train_files).shard(size, rank)
    train = train.interleave(tf.data.TFRecordDataset, cycle_length=4, num_parallel_calls=tf.data.AUTOTUNE)
    train = train.map(parse, num_parallel_calls=tf.data.AUTOTUNE).filter(drop_empty)
    train = train.shuffle(2048).map(random_dihedral, num_parallel_calls=tf.data.AUTOTUNE)
    train = train.batch(cfg["batch_size"], drop_remainder=True).repeat().prefetch(tf.data.AUTOTUNE)

    val = tf.data.TFRecordDataset(val_files).map(parse).batch(cfg["batch_size"]).prefetch(2)
    return train, val
