import keras
import numpy as np
import tensorflow as tf


def rank_slice(arr, rank, size):
    n = (len(arr) // size) * size          # same number of samples on every rank
    return arr[:n][rank::size]


def datasets(rank, size, per_rank_batch):
    (x, y), (xv, yv) = keras.datasets.cifar100.load_data()
    x, xv = x.astype(np.float32) / 255.0, xv.astype(np.float32) / 255.0
    y, yv = y.reshape(-1).astype(np.int64), yv.reshape(-1).astype(np.int64)
    train = (tf.data.Dataset.from_tensor_slices((rank_slice(x, rank, size), rank_slice(y, rank, size)))
             .shuffle(8192).batch(per_rank_batch, drop_remainder=True)
             .map(lambda a, b: (tf.image.random_flip_left_right(a), b)).prefetch(tf.data.AUTOTUNE))
    val = (tf.data.Dataset.from_tensor_slices((rank_slice(xv, rank, size), rank_slice(yv, rank, size)))
           .batch(250))
    return train, val
