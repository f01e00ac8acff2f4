import os

import numpy as np
import tensorflow as tf


def load_split(data_dir, split):
    x = np.load(os.path.join(data_dir, f"{split}_logmel.npy")).astype("float32")
    y = np.load(os.path.join(data_dir, f"{split}_tags.npy")).astype("float32")
    return x, y


def build_dataset(x, y, batch_size, num_shards, index, training):
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(num_shards, index)
    if training:
        ds = ds.shuffle(2048).repeat()
    return ds.batch(batch_size, drop_remainder=training).prefetch(tf.data.AUTOTUNE)


def mixup(x, y, alpha):
    lam = np.random.beta(alpha, alpha)
    perm = tf.random.shuffle(tf.range(tf.shape(x)[0]))
    return lam * x + (1 - lam) * tf.gather(x, perm), lam * y + (1 - lam) * tf.gather(y, perm)
