import glob

import numpy as np
import tensorflow as tf


def packed_examples(pattern, seq_len):
    rows = []
    for f in sorted(glob.glob(pattern)):
        ids = np.load(f).astype(np.int32)
        n = (len(ids) - 1) // seq_len
        rows.append(np.lib.stride_tricks.sliding_window_view(ids, seq_len + 1)[::seq_len][:n])
    return np.concatenate(rows)


def to_dataset(rows, batch_size, rank, size, shuffle):
    n_batches = len(rows) // (batch_size * size)
    ds = tf.data.Dataset.from_tensor_slices(rows).shard(size, rank)
    if shuffle:
        ds = ds.shuffle(len(rows) // size + 1, reshuffle_each_iteration=True).repeat()
    ds = ds.batch(batch_size, drop_remainder=True).map(lambda r: (r[:, :-1], r[:, 1:]))
    return ds.prefetch(tf.data.AUTOTUNE), n_batches
