import os

import numpy as np
import tensorflow as tf


def mars_index(root, split):
    """MARS track crops: <root>/bbox_<split>/<pid>/<pid>C<cam>T<track>F<frame>.jpg"""
    base = os.path.join(root, 'bbox_' + split)
    files, pids = [], []
    for pid in sorted(os.listdir(base)):
        if pid in ('00-1', '0000'):
            continue
        for f in sorted(os.listdir(os.path.join(base, pid))):
            files.append(os.path.join(base, pid, f))
            pids.append(pid)
    ids = {p: i for i, p in enumerate(sorted(set(pids)))}
    return np.array(files), np.array([ids[p] for p in pids]), len(ids)


def _decode(path, label):
    x = tf.image.decode_jpeg(tf.io.read_file(path), 3)
    x = tf.image.resize(x, (128, 64))
    return tf.cast(x, tf.float32) / 255.0, label


def worker_split(files, labels, rank, size, batch, seed=7):
    """Same permutation everywhere, strided slice per worker, whole batches only."""
    perm = np.random.RandomState(seed).permutation(len(files))
    mine = perm[rank::size]
    steps = (len(files) // size) // batch
    mine = mine[:steps * batch]
    ds = tf.data.Dataset.from_tensor_slices((files[mine], labels[mine]))
    ds = ds.shuffle(len(mine), seed=seed + rank).map(_decode, num_parallel_calls=8)
    return ds.batch(batch, drop_remainder=True).prefetch(2), steps
