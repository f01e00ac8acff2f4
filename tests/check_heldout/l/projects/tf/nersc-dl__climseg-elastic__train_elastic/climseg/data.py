import glob
import os

import numpy as np
import tensorflow as tf
import horovod.tensorflow.keras as hvd

# per-variable statistics over the 1996-2010 training years (TMQ, U850, V850, PSL, ...)
STATS = os.path.join(os.path.dirname(__file__), "stats.npz")


def _reader(mean, std):
    def read(path):
        arr = np.load(path.decode())
        x = (arr["data"].astype(np.float32) - mean) / std
        return x, arr["labels"].astype(np.int32)
    return read


def make_dataset(root, split, batch_size, training=True):
    """One .npz per time step; every process reads its own subset of the files."""
    files = sorted(glob.glob(os.path.join(root, split, "*.npz")))
    stats = np.load(STATS)
    read = _reader(stats["mean"], stats["std"])
    ds = tf.data.Dataset.from_tensor_slices(files)
    ds = ds.shard(hvd.local_size(), hvd.local_rank())
    if training:
        ds = ds.shuffle(len(files), reshuffle_each_iteration=True)
    ds = ds.map(lambda p: tf.numpy_function(read, [p], (tf.float32, tf.int32)),
                num_parallel_calls=8)
    ds = ds.map(lambda x, y: (tf.ensure_shape(x, (768, 1152, 16)), tf.ensure_shape(y, (768, 1152))))
    if training:
        ds = ds.repeat()
    return ds.batch(batch_size).prefetch(2), len(files)
