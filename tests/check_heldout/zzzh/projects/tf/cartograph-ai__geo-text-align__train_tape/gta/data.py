import os

import numpy as np
import tensorflow as tf


def load_tiles_and_texts(root, split):
    feats = np.load(os.path.join(root, split, "image_feats.npy")).astype(np.float32)
    rows = [l.rstrip("\n").split("\t", 1) for l in open(os.path.join(root, split, "captions.tsv"))]
    idx = np.array([int(r[0]) for r in rows])
    return feats[idx], np.array([r[1] for r in rows])


def train_pipeline(tiles, texts, batch, rank, world, seed=7):
    ds = tf.data.Dataset.from_tensor_slices((tiles, texts))
    ds = ds.shard(world, rank).shuffle(10000, seed=seed)
    return ds.batch(batch, drop_remainder=True).prefetch(2)
