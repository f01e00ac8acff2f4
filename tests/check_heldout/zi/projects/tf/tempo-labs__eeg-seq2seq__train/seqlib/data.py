import glob
import os

import numpy as np
import tensorflow as tf


def list_recordings(root):
    """One .npy per recording, shape (samples, channels) at 128 Hz, already band-passed."""
    return sorted(glob.glob(os.path.join(root, "*.npy")))


def windows_from(files, enc_len, dec_len, hop):
    xs, ys = [], []
    for f in files:
        sig = np.load(f).astype(np.float32)
        sig = (sig - sig.mean(0)) / (sig.std(0) + 1e-6)
        for s in range(0, len(sig) - enc_len - dec_len + 1, hop):
            xs.append(sig[s:s + enc_len])
            ys.append(sig[s + enc_len:s + enc_len + dec_len])
    return np.stack(xs), np.stack(ys)


def to_dataset(x, y, batch, rank, size, train):
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(size, rank)
    if train:
        ds = ds.shuffle(8192).repeat()
    return ds.batch(batch, drop_remainder=train).prefetch(tf.data.AUTOTUNE)
