import csv
import zlib

import numpy as np
import tensorflow as tf

from .schema import CATEGORICAL, COLUMNS, LABEL, NUMERIC


def _bucket(value, n):
    return zlib.crc32(value.strip().encode()) % n


def read_csv(path):
    cols = {c: [] for c in list(CATEGORICAL) + NUMERIC}
    labels = []
    with open(path, newline="") as f:
        for row in csv.reader(f, skipinitialspace=True):
            if len(row) != len(COLUMNS) or row[0].startswith("|"):
                continue
            rec = dict(zip(COLUMNS, row))
            for c, n in CATEGORICAL.items():
                cols[c].append(_bucket(rec[c], n))
            for c in NUMERIC:
                cols[c].append(float(rec[c]))
            labels.append(1.0 if rec[LABEL].rstrip(".") == ">50K" else 0.0)
    out = {c: np.asarray(v, "int32" if c in CATEGORICAL else "float32")[:, None] for c, v in cols.items()}
    return out, np.asarray(labels, "float32")


def to_dataset(cols, labels, batch_size, shard=None, shuffle=False, repeat=True):
    ds = tf.data.Dataset.from_tensor_slices((cols, labels))
    if shard is not None:
        ds = ds.shard(*shard)
    if shuffle:
        ds = ds.shuffle(10_000, reshuffle_each_iteration=True)
    if repeat:
        ds = ds.repeat()
    return ds.batch(batch_size).prefetch(tf.data.AUTOTUNE)
