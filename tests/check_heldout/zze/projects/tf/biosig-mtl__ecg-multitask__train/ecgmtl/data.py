import numpy as np
import tensorflow as tf


def load_split(root, split):
    """signals [N, 1000, 12] float16 (10 s @ 100 Hz, 12 leads), labels [N, 5] multi-hot superclasses."""
    sig = np.load(f"{root}/{split}_signals.npy").astype(np.float32)
    lab = np.load(f"{root}/{split}_labels.npy").astype(np.float32)
    return sig, lab


def pipeline(signals, labels, batch, rank, size, train, seed=0):
    ds = tf.data.Dataset.from_tensor_slices((signals, labels)).shard(size, rank)
    if train:
        ds = ds.shuffle(8192, seed=seed).repeat()
        ds = ds.map(lambda s, y: (s + tf.random.normal(tf.shape(s), stddev=0.01), y))
    return ds.batch(batch, drop_remainder=train).prefetch(tf.data.AUTOTUNE)
