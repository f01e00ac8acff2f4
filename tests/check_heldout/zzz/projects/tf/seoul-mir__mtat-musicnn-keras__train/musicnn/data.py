import os

import numpy as np
import tensorflow as tf


def load_split(root, split):
    x = np.load(os.path.join(root, f"{split}_x.npy"), mmap_mode="r")   # (N, samples) float16
    y = np.load(os.path.join(root, f"{split}_y.npy"))                  # (N, 50) uint8
    return x, y.astype("float32")


def make_dataset(x, y, batch_size, shard=None, training=True, seed=0):
    ds = tf.data.Dataset.from_tensor_slices((np.asarray(x, dtype="float32"), y))
    if shard is not None:
        num_shards, index = shard
        ds = ds.shard(num_shards, index)
    if training:
        ds = ds.shuffle(4096, seed=seed, reshuffle_each_iteration=True).repeat()
    return ds.batch(batch_size, drop_remainder=training).prefetch(tf.data.AUTOTUNE)


def roc_auc_pr_auc(y, p):
    aucs, aps = [], []
    for k in range(y.shape[1]):
        pos = y[:, k] > 0.5
        if pos.all() or not pos.any():
            continue
        order = np.argsort(-p[:, k])
        hits = pos[order]
        tpr = np.cumsum(hits) / hits.sum()
        fpr = np.cumsum(~hits) / (~hits).sum()
        tpr, fpr = np.r_[0, tpr], np.r_[0, fpr]
        aucs.append(float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2)))
        aps.append(np.sum(np.cumsum(hits)[hits] / (np.flatnonzero(hits) + 1)) / hits.sum())
    return float(np.mean(aucs)), float(np.mean(aps))
