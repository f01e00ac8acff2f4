import numpy as np
import tensorflow as tf


def _blobs(n, img, seed):
    r = np.random.RandomState(seed)
    x = r.rand(n, img, img, 1).astype("float32")
    y = (x > 0.7).astype("float32")
    return x, y


def datasets(F, rank, size):
    x, y = _blobs(F.n_train, F.img, 0)
    xv, yv = _blobs(F.n_val, F.img, 1)
    tr = tf.data.Dataset.from_tensor_slices((x, y)).shard(size, rank).shuffle(256).batch(F.batch, drop_remainder=True)
    va = tf.data.Dataset.from_tensor_slices((xv, yv)).shard(size, rank).batch(F.batch)
    return tr, va, (F.n_train // size) // F.batch
