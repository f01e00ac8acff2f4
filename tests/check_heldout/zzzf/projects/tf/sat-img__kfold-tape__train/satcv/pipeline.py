import numpy as np
import tensorflow as tf


def assign_folds(n, k, seed):
    return np.random.RandomState(seed).permutation(n) % k


def fold_datasets(x, y, folds, k, batch, rank, world, seed):
    tr, va = folds != k, folds == k
    train = (tf.data.Dataset.from_tensor_slices((x[tr], y[tr]))
             .shard(world, rank)
             .shuffle(4096, seed=seed)
             .batch(batch, drop_remainder=True)
             .prefetch(tf.data.AUTOTUNE))
    val = (tf.data.Dataset.from_tensor_slices((x[va], y[va]))
           .shard(world, rank)
           .batch(batch)
           .prefetch(tf.data.AUTOTUNE))
    return train, val, int(tr.sum()) // world // batch
