"""Folded pulsar candidates: (profile 64 bins, DM curve 64, phase-time 32x64, phase-freq 32x64)."""
import glob
import os

import numpy as np
import tensorflow as tf


def read_candidate_files(root):
    files = sorted(glob.glob(os.path.join(root, "cands_*.npz")))
    arrs = [np.load(f) for f in files]
    cat = lambda k, dt: np.concatenate([a[k] for a in arrs]).astype(dt)
    return {"profile": cat("profile", "float32"), "dm_curve": cat("dm_curve", "float32"),
            "time_phase": cat("time_phase", "float32")[..., None],
            "freq_phase": cat("freq_phase", "float32")[..., None]}, cat("is_pulsar", "float32")


def class_weights(y):
    pos = max(float(y.sum()), 1.0)
    neg = max(float(len(y) - y.sum()), 1.0)
    return {0: 0.5 * len(y) / neg, 1: 0.5 * len(y) / pos}


def make_dataset(x, y, batch, shard_count, shard_index, train):
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shard(shard_count, shard_index)
    if train:
        ds = ds.shuffle(20000).repeat()
    return ds.batch(batch).prefetch(tf.data.AUTOTUNE)
