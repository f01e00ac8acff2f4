import numpy as np
import tensorflow as tf
import horovod.tensorflow as hvd


def load_array(path, test_fraction=0.05, seed=0):
    """npz with `imgs` (N, 64, 64[, C]) in {0,1} or uint8; the split is the same on every worker."""
    with np.load(path) as f:
        x = f["imgs"].astype(np.float32)
    if x.max() > 1.0:
        x /= 255.0
    if x.ndim == 3:
        x = x[..., None]
    idx = np.random.RandomState(seed).permutation(len(x))
    n_test = int(len(x) * test_fraction)
    return x[idx[n_test:]], x[idx[:n_test]]


def make_dataset(x, batch_size, training=True):
    ds = tf.data.Dataset.from_tensor_slices(x).shard(hvd.size(), hvd.rank())
    if training:
        ds = ds.shuffle(10_000, reshuffle_each_iteration=True).repeat()
    return ds.batch(batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE)
