import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


def featurize_fake(n, max_atoms, seed=0):
    rs = np.random.RandomState(seed)
    na = rs.randint(8, max_atoms, n)
    mask = (np.arange(max_atoms)[None] < na[:, None]).astype("float32")
    x = rs.randint(0, 40, (n, max_atoms)) * mask.astype("int64")
    adj = (rs.rand(n, max_atoms, max_atoms) < 0.06).astype("float32")
    adj = np.maximum(adj, adj.transpose(0, 2, 1)) * mask[:, :, None] * mask[:, None, :]
    y = (rs.rand(n) < 0.45).astype("float32")
    return x, adj, mask, y


def save_arrays(path, **arrays):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    np.savez_compressed(path, **arrays)


def load_arrays(path):
    z = np.load(path)
    return z["x"], z["adj"], z["mask"], z["y"]


def make_dataset(arrays, ids, batch_size, shuffle, rank=hvd.rank(), size=hvd.size()):
    """the molecules ids[rank::size] of this worker, batched"""
    x, adj, mask, y = arrays
    mine = ids[rank::size]
    ds = tf.data.Dataset.from_tensor_slices((x[mine], adj[mine], mask[mine], y[mine]))
    if shuffle:
        ds = ds.shuffle(len(mine), seed=rank)
    return ds.batch(batch_size, drop_remainder=shuffle)
