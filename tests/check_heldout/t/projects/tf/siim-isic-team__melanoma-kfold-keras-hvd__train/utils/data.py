import os

import numpy as np
import tensorflow as tf


def load_arrays(cfg):
    x = np.load(os.path.join(cfg.data_dir, f"train_{cfg.img_size}.npy"), mmap_mode="r")
    y = np.load(os.path.join(cfg.data_dir, "target.npy")).astype("float32")
    return x, y


def fold_indices(n, folds, fold, seed):
    rng = np.random.RandomState(seed)
    fold_of = rng.randint(0, folds, size=n)
    return np.where(fold_of != fold)[0], np.where(fold_of == fold)[0]


def _augment(img, label):
    img = tf.image.random_flip_left_right(img)
    img = tf.image.random_flip_up_down(img)
    img = tf.image.random_brightness(img, 0.1)
    return img, label


def make_dataset(x, y, batch_size, num_shards, index, training):
    ds = tf.data.Dataset.from_tensor_slices((np.asarray(x), y)).shard(num_shards, index)
    ds = ds.map(lambda a, b: (tf.cast(a, tf.float32) / 255.0, b), num_parallel_calls=tf.data.AUTOTUNE)
    if training:
        ds = ds.shuffle(2048).map(_augment, num_parallel_calls=tf.data.AUTOTUNE).repeat()
    return ds.batch(batch_size, drop_remainder=training).prefetch(tf.data.AUTOTUNE)
