import glob
import os

import tensorflow as tf


def list_split(root, split):
    classes = sorted(os.listdir(os.path.join(root, split)))
    files, labels = [], []
    for idx, name in enumerate(classes):
        for f in sorted(glob.glob(os.path.join(root, split, name, "*.jpg"))):
            files.append(f)
            labels.append(idx)
    return files, labels


def _decode(size, train):
    def fn(path, label):
        img = tf.io.decode_jpeg(tf.io.read_file(path), channels=3)
        img = tf.image.resize(img, (size, size)) / 255.0
        if train:
            img = tf.image.random_flip_left_right(img)
            img = tf.image.random_brightness(img, 0.1)
        return img, label
    return fn


def make_dataset(cfg, split, num_shards, index, train=True):
    files, labels = list_split(cfg["data_dir"], split)
    ds = tf.data.Dataset.from_tensor_slices((files, labels)).shard(num_shards, index)
    if train:
        ds = ds.shuffle(20000, reshuffle_each_iteration=True)
    ds = ds.map(_decode(cfg["image_size"], train), num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(cfg["batch_size"], drop_remainder=train).prefetch(tf.data.AUTOTUNE)
