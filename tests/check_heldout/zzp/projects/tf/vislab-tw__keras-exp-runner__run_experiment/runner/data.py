import keras
import numpy as np
import tensorflow as tf


def partition(n, world, rank, seed):
    """Every worker draws the same permutation and keeps its own equal block."""
    perm = np.random.RandomState(seed).permutation(n)
    per = n // world
    return perm[rank * per:(rank + 1) * per]


def datasets(cfg, world, rank):
    (x, y), (xv, yv) = keras.datasets.fashion_mnist.load_data()
    x = (x[..., None] / 255.0).astype("float32")
    xv = (xv[..., None] / 255.0).astype("float32")
    mine = partition(len(x), world, rank, cfg["seed"])
    local_batch = cfg["global_batch"] // world
    train = (tf.data.Dataset.from_tensor_slices((x[mine], y[mine]))
             .shuffle(len(mine), seed=cfg["seed"] + rank)
             .batch(local_batch, drop_remainder=True)
             .prefetch(2))
    val = tf.data.Dataset.from_tensor_slices((xv, yv)).batch(500)
    return train, val
