"""Tokenised utterances, one JSON object per line: {"ids": [...], "intent": k}."""
import glob
import json

import numpy as np
import tensorflow as tf


def _read(files, max_len):
    ids, labels = [], []
    for path in files:
        with open(path) as f:
            for line in f:
                if line.strip():
                    ex = json.loads(line)
                    ids.append(ex["ids"][:max_len] + [0] * (max_len - len(ex["ids"][:max_len])))
                    labels.append(ex["intent"])
    return np.asarray(ids, np.int32), np.asarray(labels, np.int32)


def make_dataset(pattern, cfg, rank, world, training):
    files = sorted(glob.glob(pattern))
    x, y = _read(files, cfg.max_len)
    n = len(y) // world
    x, y = x[rank * n:(rank + 1) * n], y[rank * n:(rank + 1) * n]
    ds = tf.data.Dataset.from_tensor_slices((x, y))
    if training:
        ds = ds.shuffle(len(y), seed=rank, reshuffle_each_iteration=True)
    ds = ds.repeat().batch(cfg.batch_size, drop_remainder=True).prefetch(tf.data.AUTOTUNE)
    return ds, n // cfg.batch_size
