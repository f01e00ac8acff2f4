import numpy as np
import tensorflow as tf


def load_covtype(path, seed=0):
    """Tabular features (float32) and 0-based labels from an .npz produced by prepare_data.py."""
    d = np.load(path)
    x, y = d["x"].astype("float32"), d["y"].astype("int64")
    x = (x - x.mean(0)) / (x.std(0) + 1e-6)
    perm = np.random.RandomState(seed).permutation(len(x))
    n_test = len(x) // 10
    return (x[perm[n_test:]], y[perm[n_test:]]), (x[perm[:n_test]], y[perm[:n_test]])


def make_dataset(x, y, batch, rank, world, training, seed=0):
    if training:  # equal shards -> the same number of steps on every worker
        n = len(x) // world * world
        x, y = x[:n], y[:n]
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(world, rank)
    if training:
        ds = ds.shuffle(50_000, seed=seed, reshuffle_each_iteration=True)
    return ds.batch(batch).prefetch(tf.data.AUTOTUNE)
