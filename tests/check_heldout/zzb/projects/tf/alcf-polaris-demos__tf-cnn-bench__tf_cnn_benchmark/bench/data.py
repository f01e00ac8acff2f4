from collections import namedtuple

import numpy as np
import tensorflow as tf

Info = namedtuple("Info", "shape classes")


def _synthetic(batch):
    images = tf.random.uniform((batch, 32, 32, 3), seed=1)
    labels = tf.random.uniform((batch,), maxval=10, dtype=tf.int32, seed=2)
    ds = tf.data.Dataset.from_tensors((images, labels)).repeat()
    test = tf.data.Dataset.from_tensors((images, labels)).take(4)
    return ds, test


def get_dataset(cfg, rank, size):
    if cfg.dataset == "synthetic":
        train, test = _synthetic(cfg.batch_size)
        return train, test, Info((32, 32, 3), 10)
    (x, y), (xt, yt) = tf.keras.datasets.cifar10.load_data()
    x, xt = x.astype(np.float32) / 255.0, xt.astype(np.float32) / 255.0
    y, yt = y.reshape(-1).astype(np.int32), yt.reshape(-1).astype(np.int32)
    train = (tf.data.Dataset.from_tensor_slices((x, y))
             .shard(size, rank)
             .shuffle(10000, seed=rank)
             .repeat()
             .batch(cfg.batch_size, drop_remainder=True)
             .prefetch(tf.data.AUTOTUNE))
    test = tf.data.Dataset.from_tensor_slices((xt, yt)).shard(size, rank).batch(512)
    return train, test, Info((32, 32, 3), 10)
