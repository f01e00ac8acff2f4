import os

import numpy as np
import tensorflow as tf


def _synthetic(n, tile, n_classes, seed):
    rng = np.random.RandomState(seed)
    x = rng.rand(n, tile, tile, 3).astype("float32")
    y = rng.randint(0, n_classes, size=(n, tile, tile)).astype("int32")
    return x, y


def _from_disk(root, split):
    return np.load(os.path.join(root, split + "_x.npy")), np.load(os.path.join(root, split + "_y.npy"))


def make_dataset(dcfg, split, batch_size, rank=0, size=1):
    if dcfg.root:
        x, y = _from_disk(dcfg.root, split)
    else:
        n = dcfg.n_train if split == "train" else dcfg.n_val
        x, y = _synthetic(n, dcfg.tile, dcfg.n_classes, seed=0 if split == "train" else 1)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(size, rank)
    if split == "train":
        ds = ds.shuffle(1024).repeat()
    else:
        ds = ds.repeat()
    steps = max(1, len(x) // size // batch_size)
    return ds.batch(batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE), steps
