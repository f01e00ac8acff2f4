import csv
import os

import tensorflow as tf

CLASSES = ["MEL", "NV", "BCC", "AK", "BKL", "DF", "VASC", "SCC"]


def read_split(root, split):
    with open(os.path.join(root, f"{split}.csv")) as f:
        rows = sorted(csv.DictReader(f), key=lambda r: r["image"])
    paths = [os.path.join(root, "images", r["image"] + ".jpg") for r in rows]
    labels = [CLASSES.index(r["label"]) for r in rows]
    return paths, labels


def _load(size, training):
    def fn(path, label):
        img = tf.image.decode_jpeg(tf.io.read_file(path), channels=3)
        if training:
            img = tf.image.random_crop(tf.image.resize(img, (size + 32, size + 32)), (size, size, 3))
            img = tf.image.random_flip_left_right(tf.image.random_flip_up_down(img))
            img = tf.image.random_brightness(img, 20.0)
        else:
            img = tf.image.resize(img, (size, size))
        return img, label
    return fn


def make_dataset(root, split, size, batch_size, num_shards, index, training):
    paths, labels = read_split(root, split)
    ds = tf.data.Dataset.from_tensor_slices((paths, labels)).shard(num_shards, index)
    if training:
        ds = ds.shuffle(8192, reshuffle_each_iteration=True).repeat()
    ds = ds.map(_load(size, training), num_parallel_calls=tf.data.AUTOTUNE)
    if not training:
        ds = ds.repeat()
    return ds.batch(batch_size).prefetch(tf.data.AUTOTUNE), len(paths)
