import numpy as np
import tensorflow as tf


def load_covtype(path, val_frac=0.1, seed=5212):
    raw = np.loadtxt(path, delimiter=",", dtype=np.float32)
    x, y = raw[:, :-1], raw[:, -1].astype(np.int64) - 1
    idx = np.random.RandomState(seed).permutation(len(x))
    n_val = int(len(x) * val_frac)
    val, train = idx[:n_val], idx[n_val:]
    mean, std = x[train].mean(0), x[train].std(0) + 1e-6
    x = (x - mean) / std
    return (x[train], y[train]), (x[val], y[val])


def make_train_ds(x, y, batch_size, seed=None):
    ds = tf.data.Dataset.from_tensor_slices((x, y))
    ds = ds.shuffle(len(x), seed=seed, reshuffle_each_iteration=True)
    return ds.batch(batch_size).prefetch(tf.data.AUTOTUNE)


def make_eval_ds(x, y, batch_size=4096):
    return tf.data.Dataset.from_tensor_slices((x, y)).batch(batch_size)
