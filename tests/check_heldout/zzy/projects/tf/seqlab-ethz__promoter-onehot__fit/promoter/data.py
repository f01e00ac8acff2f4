import numpy as np
import tensorflow as tf

from .fasta import one_hot_encode, read_fasta


def load_fasta(path, length):
    xs, ys = [], []
    for header, seq in read_fasta(path):
        xs.append(one_hot_encode(seq, length))
        ys.append(int(header.rsplit("label=", 1)[1]))
    return np.stack(xs), np.asarray(ys, dtype=np.float32)


def to_dataset(x, y, batch_size, shuffle, num_shards=1, shard_index=0, seed=13):
    ds = tf.data.Dataset.from_tensor_slices((x, y))
    if num_shards > 1:
        ds = ds.shard(num_shards, shard_index)
    if shuffle:
        ds = ds.shuffle(10000, seed=seed).repeat()
    return ds.batch(batch_size).prefetch(tf.data.AUTOTUNE)
