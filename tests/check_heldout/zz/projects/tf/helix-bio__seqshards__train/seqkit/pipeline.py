import glob
import os

import numpy as np
import tensorflow as tf

from .encode import one_hot
from .fasta import label_of, read_fasta


def shard_files(pattern, rank, size):
    files = sorted(glob.glob(pattern))
    mine = files[rank::size]
    if not mine:
        raise RuntimeError(f"rank {rank}: no shard among {len(files)} files")
    return mine


def records(files, length, seed=None):
    def gen():
        order = list(files)
        if seed is not None:
            np.random.default_rng(seed).shuffle(order)
        for path in order:
            for header, seq in read_fasta(path):
                yield one_hot(seq, length), label_of(header)
    return gen


def build(files, length, batch, training, seed=None):
    ds = tf.data.Dataset.from_generator(
        records(files, length, seed),
        output_signature=(tf.TensorSpec((length, 4), tf.float32), tf.TensorSpec((), tf.int64)))
    if training:
        ds = ds.shuffle(10_000).repeat()
    return ds.batch(batch).prefetch(tf.data.AUTOTUNE)


def read_count(manifest_dir):
    with open(os.path.join(manifest_dir, "COUNT")) as f:
        return int(f.read().strip())
