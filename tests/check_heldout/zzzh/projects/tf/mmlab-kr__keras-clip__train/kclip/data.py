import os

import numpy as np
import tensorflow as tf


def read_split(data_dir, split):
    feats = np.load(os.path.join(data_dir, split, "image_feats.npy")).astype("float32")
    idx, caps = [], []
    with open(os.path.join(data_dir, split, "captions.tsv")) as f:
        for line in f:
            i, c = line.rstrip("\n").split("\t", 1)
            idx.append(int(i))
            caps.append(c)
    return feats[np.array(idx)], np.array(caps)


def make_train_ds(images, captions, batch_size, num_shards, shard_index, seed=0):
    ds = tf.data.Dataset.from_tensor_slices((images, captions))
    ds = ds.shard(num_shards, shard_index)
    ds = ds.shuffle(4096, seed=seed, reshuffle_each_iteration=True).repeat()
    ds = ds.batch(batch_size, drop_remainder=True)
    # in-batch negatives: the target of row i is column i
    ds = ds.map(lambda im, cap: ((im, cap), tf.range(tf.shape(im)[0])))
    return ds.prefetch(tf.data.AUTOTUNE)
