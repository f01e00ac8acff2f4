import os
import pickle

import numpy as np
import tensorflow as tf


def build_vocab(texts, cache, min_count=3):
    if os.path.exists(cache):
        with open(cache, "rb") as f:
            return pickle.load(f)
    counts = {}
    for t in texts:
        for w in t.split():
            counts[w] = counts.get(w, 0) + 1
    words = sorted(w for w, c in counts.items() if c >= min_count)
    vocab = {w: i + 4 for i, w in enumerate(words)}
    with open(cache, "wb") as f:
        pickle.dump(vocab, f)
    return vocab


def to_array(texts, vocab, max_len, bos):
    arr = np.zeros((len(texts), max_len), np.int32)
    for i, t in enumerate(texts):
        ids = ([1] if bos else []) + [vocab.get(w, 3) for w in t.split()][: max_len - 2] + [2]
        arr[i, :len(ids)] = ids
    return arr


def pipeline(src, tgt, batch, shard, n_shards, seed):
    ds = tf.data.Dataset.from_tensor_slices((src, tgt)).shard(n_shards, shard)
    return ds.shuffle(len(src) // n_shards + 1, seed=seed).batch(batch, drop_remainder=True)
