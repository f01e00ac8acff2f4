import os

import numpy as np
import tensorflow as tf


def load_catalogue(root, split):
    feats = np.load(os.path.join(root, split, "image_feats.npy")).astype("float32")
    ids, desc = [], []
    for line in open(os.path.join(root, split, "captions.tsv"), encoding="utf-8"):
        i, d = line.rstrip("\n").split("\t", 1)
        ids.append(int(i))
        desc.append(d)
    return feats[ids], np.array(desc)


def make_dataset(feats, desc, batch_size, training=True):
    ds = tf.data.Dataset.from_tensor_slices((feats, desc))
    if training:
        ds = ds.shuffle(len(feats), reshuffle_each_iteration=True).repeat()
    ds = ds.batch(batch_size, drop_remainder=True)
    ds = ds.map(lambda f, d: ((f, d), tf.range(batch_size)), num_parallel_calls=tf.data.AUTOTUNE)
    return ds.prefetch(tf.data.AUTOTUNE)
