import glob
import os

import tensorflow as tf

CLASSES = ["NORMAL", "PNEUMONIA"]


def list_images(folder):
    paths, labels = [], []
    for label, name in enumerate(CLASSES):
        files = sorted(glob.glob(os.path.join(folder, name, "*.jpeg")) + glob.glob(os.path.join(folder, name, "*.png")))
        paths += files
        labels += [label] * len(files)
    return paths, labels


def count_images(folder):
    return len(list_images(folder)[0])


def make_dataset(folder, batch_size, img_size, training, shard):
    """shard = (num_shards, index): sorted file list -> same order everywhere -> disjoint shards."""
    paths, labels = list_images(folder)
    ds = tf.data.Dataset.from_tensor_slices((paths, labels)).shard(*shard)

    def load(path, label):
        img = tf.io.decode_image(tf.io.read_file(path), channels=1, expand_animations=False)
        img = tf.image.resize(img, (img_size, img_size)) / 255.0
        return img, tf.cast(label, tf.float32)

    if training:
        ds = ds.shuffle(2048, reshuffle_each_iteration=True)
    ds = ds.map(load, num_parallel_calls=tf.data.AUTOTUNE)
    if training:
        ds = ds.map(lambda x, y: (tf.image.random_flip_left_right(x), y))
    return ds.repeat().batch(batch_size).prefetch(tf.data.AUTOTUNE)
