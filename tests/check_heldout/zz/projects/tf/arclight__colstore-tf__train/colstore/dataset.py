import numpy as np
import tensorflow as tf

from .reader import ColumnStore


def split_groups(store, rank, size):
    return store.groups[rank::size]


def group_dataset(store, groups, feature_cols, label_col, batch, shuffle, seed=0):
    n_feat = len(feature_cols)

    def gen():
        rng = np.random.default_rng(seed)
        order = rng.permutation(len(groups)) if shuffle else range(len(groups))
        for gi in order:
            cols = store.read(groups[gi], feature_cols + [label_col])
            x = np.stack([np.asarray(cols[c], dtype=np.float32) for c in feature_cols], axis=1)
            y = np.asarray(cols[label_col], dtype=np.int32)
            idx = rng.permutation(len(y)) if shuffle else np.arange(len(y))
            for i in idx:
                yield x[i], y[i]

    ds = tf.data.Dataset.from_generator(
        gen, output_signature=(tf.TensorSpec((n_feat,), tf.float32), tf.TensorSpec((), tf.int32)))
    if shuffle:
        ds = ds.repeat()
    return ds.batch(batch, drop_remainder=shuffle).prefetch(4)
