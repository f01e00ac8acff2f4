import numpy as np
import tensorflow as tf


def _arrays(n, num_classes, seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 32, 32, 3)).astype("float32")
    y = rng.integers(0, num_classes, size=(n,)).astype("int32")
    return x, y


def make_datasets(args, rank, size):
    """each replica reads its own 1/size of train and val"""
    x, y = _arrays(args.num_train, args.num_classes, 0)
    xv, yv = _arrays(args.num_val, args.num_classes, 1)
    train = (tf.data.Dataset.from_tensor_slices((x, y))
             .shard(size, rank)
             .shuffle(4096, reshuffle_each_iteration=True)
             .batch(args.batch_size, drop_remainder=True)
             .prefetch(tf.data.AUTOTUNE))
    val = (tf.data.Dataset.from_tensor_slices((xv, yv))
           .shard(size, rank)
           .batch(args.batch_size))
    steps = (args.num_train // size) // args.batch_size
    return train, val, steps
