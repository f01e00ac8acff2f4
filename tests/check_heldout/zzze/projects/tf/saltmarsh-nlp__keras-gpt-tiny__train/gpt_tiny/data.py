import numpy as np
import tensorflow as tf


def windows(path, seq_len):
    ids = np.load(path, mmap_mode="r")
    n = (len(ids) - 1) // seq_len
    idx = np.arange(n)[:, None] * seq_len + np.arange(seq_len + 1)[None, :]
    return np.asarray(ids[idx], dtype=np.int32)


def make_dataset(path, seq_len, batch_size, rank, size, training=True):
    w = windows(path, seq_len)
    steps = len(w) // (batch_size * size)
    ds = tf.data.Dataset.from_tensor_slices(w).shard(size, rank)
    if training:
        ds = ds.shuffle(4096, seed=rank, reshuffle_each_iteration=True).repeat()
    ds = ds.batch(batch_size, drop_remainder=True).map(lambda t: (t[:, :-1], t[:, 1:]))
    return ds.prefetch(tf.data.AUTOTUNE), steps
