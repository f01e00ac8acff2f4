"""APTOS / EyePACS fundus images listed in a CSV (id_code,diagnosis) -> tf.data."""
import csv
import os

import tensorflow as tf

NUM_GRADES = 5


def read_labels(csv_path, image_dir, ext=".png"):
    with open(csv_path) as f:
        rows = list(csv.DictReader(f))
    paths = [os.path.join(image_dir, r["id_code"] + ext) for r in rows]
    grades = [int(r["diagnosis"]) for r in rows]
    return paths, grades


def _load(path, grade, size):
    img = tf.io.decode_png(tf.io.read_file(path), channels=3)
    img = tf.image.resize(img, (size, size)) / 255.0
    return img, grade


def _augment(img, grade):
    img = tf.image.random_flip_left_right(img)
    img = tf.image.random_flip_up_down(img)
    img = tf.image.rot90(img, tf.random.uniform([], 0, 4, dtype=tf.int32))
    img = tf.image.random_brightness(img, 0.1)
    img = tf.image.random_contrast(img, 0.9, 1.1)
    return tf.clip_by_value(img, 0.0, 1.0), grade


def build(paths, grades, batch_size, size, shard_index, num_shards, training):
    ds = tf.data.Dataset.from_tensor_slices((paths, grades))
    ds = ds.shard(num_shards, shard_index)
    if training:
        ds = ds.shuffle(2048, reshuffle_each_iteration=True).repeat()
    ds = ds.map(lambda p, g: _load(p, g, size), num_parallel_calls=tf.data.AUTOTUNE)
    if training:
        ds = ds.map(_augment, num_parallel_calls=tf.data.AUTOTUNE)
    return ds.batch(batch_size, drop_remainder=training).prefetch(tf.data.AUTOTUNE)
