import os

import numpy as np
import tensorflow as tf


def load_molecules(path, n, seed=0):
    if os.path.exists(path):
        z = np.load(path, allow_pickle=True)
        return list(z["Z"]), list(z["R"]), z["y"].astype("float32")
    rs = np.random.RandomState(seed)
    Z, R = [], []
    for _ in range(n):
        k = rs.randint(3, 29)
        Z.append(rs.randint(1, 10, k))
        R.append(rs.randn(k, 3).astype("float32") * 1.5)
    return Z, R, rs.randn(n).astype("float32")


def collate(Z, R, y, ids):
    """concatenate atoms of several molecules; seg[i] = molecule of atom i; all pairs inside each molecule"""
    zs, rs, seg, idx_i, idx_j = [], [], [], [], []
    off = 0
    for b, m in enumerate(ids):
        k = len(Z[m])
        zs.append(Z[m]); rs.append(R[m]); seg.append(np.full(k, b))
        ii, jj = np.meshgrid(np.arange(k), np.arange(k), indexing="ij")
        keep = ii != jj
        idx_i.append(ii[keep] + off); idx_j.append(jj[keep] + off)
        off += k
    return (np.concatenate(zs).astype("int32"), np.concatenate(rs), np.concatenate(seg).astype("int32"),
            np.concatenate(idx_i).astype("int32"), np.concatenate(idx_j).astype("int32"), y[list(ids)])


def batches(Z, R, y, ids, batch_size, shuffle=False, seed=0):
    ids = np.array(ids)
    if shuffle:
        ids = np.random.RandomState(seed).permutation(ids)
    for s in range(0, len(ids) - batch_size + 1, batch_size):   # drop the last partial batch
        yield tuple(tf.constant(a) for a in collate(Z, R, y, ids[s:s + batch_size]))
