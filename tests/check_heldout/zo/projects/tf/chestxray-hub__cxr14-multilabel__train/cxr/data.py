"""Data_Entry_2017.csv + official train_val / test split lists -> tf.data pipelines."""
import csv
import os

import numpy as np
import tensorflow as tf

from . import PATHOLOGIES


def read_split(csv_path, list_path, image_dir):
    with open(list_path) as f:
        keep = set(line.strip() for line in f if line.strip())
    paths, labels = [], []
    with open(csv_path) as f:
        for row in csv.DictReader(f):
            name = row["Image Index"]
            if name not in keep:
                continue
            found = row["Finding Labels"].split("|")
            paths.append(os.path.join(image_dir, name))
            labels.append([1.0 if p in found else 0.0 for p in PATHOLOGIES])
    return paths, np.array(labels, np.float32)


def _decode(path, label, size):
    img = tf.io.decode_png(tf.io.read_file(path), channels=1)
    img = tf.image.resize(tf.image.grayscale_to_rgb(img), (size, size)) / 255.0
    return (img - 0.5) / 0.25, label


def pipeline(paths, labels, batch_size, size, rank, world, training):
    ds = tf.data.Dataset.from_tensor_slices((paths, labels)).shard(world, rank)
    if training:
        ds = ds.shuffle(8192).repeat()
    ds = ds.map(lambda p, y: _decode(p, y, size), num_parallel_calls=tf.data.AUTOTUNE)
    if training:
        ds = ds.map(lambda x, y: (tf.image.random_flip_left_right(x), y))
    return ds.batch(batch_size, drop_remainder=training).prefetch(tf.data.AUTOTUNE)
