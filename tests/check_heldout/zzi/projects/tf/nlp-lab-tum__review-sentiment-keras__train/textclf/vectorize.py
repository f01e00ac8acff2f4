"""Reviews are pre-tokenised to int32 id matrices by tools/tokenize.py."""
import os

import numpy as np
import tensorflow as tf


def load_ids(data_dir, split, max_len):
    ids = np.load(os.path.join(data_dir, f"{split}_ids.npy"))[:, :max_len]
    labels = np.load(os.path.join(data_dir, f"{split}_labels.npy")).astype("float32")
    return ids, labels


def review_dataset(ids, labels, batch_size, rank, size, train):
    n = (len(ids) // size) * size
    ids, labels = ids[:n][rank::size], labels[:n][rank::size]
    ds = tf.data.Dataset.from_tensor_slices((ids, labels))
    if train:
        ds = ds.shuffle(len(ids), reshuffle_each_iteration=True).repeat()
    return ds.batch(batch_size, drop_remainder=train).prefetch(2)
