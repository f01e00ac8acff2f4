import glob
import os

import tensorflow as tf

FEATURES = {"image/encoded": tf.io.FixedLenFeature([], tf.string),
            "image/label": tf.io.FixedLenFeature([], tf.int64)}


def _parse(size, training):
    def fn(rec):
        ex = tf.io.parse_single_example(rec, FEATURES)
        img = tf.image.decode_jpeg(ex["image/encoded"], channels=3)
        img = tf.image.resize(img, [size, size]) / 255.0
        if training:
            img = tf.image.random_flip_left_right(img)
        return img, tf.cast(ex["image/label"], tf.int32)
    return fn


def get_split(cfg, split, world, rank):
    files = sorted(glob.glob(os.path.join(cfg.data_dir, f"{split}-*.tfrecord")))
    ds = tf.data.TFRecordDataset(files, num_parallel_reads=4)
    training = split == "train"
    if training:
        ds = ds.shuffle(8192)
    ds = ds.shard(world, rank)
    ds = ds.map(_parse(cfg.image_size, training), num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(cfg.batch_size, drop_remainder=training).prefetch(tf.data.AUTOTUNE)
