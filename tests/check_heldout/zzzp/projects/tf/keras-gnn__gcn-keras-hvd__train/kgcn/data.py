import os

import numpy as np


def load(args):
    f = os.path.join(args.data_dir, args.dataset + ".npz")
    if os.path.exists(f):
        z = np.load(f)
        x, y, edges = z["x"], z["y"], z["edges"]
    else:
        rs = np.random.RandomState(0)
        n = args.nodes
        x = (rs.rand(n, args.features) < 0.01).astype("float32")
        y = rs.randint(0, args.classes, n)
        edges = rs.randint(0, n, (4 * n, 2))
    y1h = np.eye(int(y.max()) + 1, dtype="float32")[y]
    n = x.shape[0]
    idx = np.arange(n)
    train_mask = np.zeros(n, bool); train_mask[idx[:120]] = True
    val_mask = np.zeros(n, bool); val_mask[idx[200:700]] = True
    test_mask = np.zeros(n, bool); test_mask[idx[-1000:]] = True
    return x, y1h, edges, train_mask, val_mask, test_mask


def gcn_filter(edges, n):
    """symmetric normalised adjacency with self loops, as (row, col, value) arrays"""
    e = np.concatenate([edges, edges[:, ::-1], np.stack([np.arange(n)] * 2, 1)])
    e = np.unique(e, axis=0)
    deg = np.bincount(e[:, 0], minlength=n).astype("float32")
    dinv = deg ** -0.5
    vals = dinv[e[:, 0]] * dinv[e[:, 1]]
    return e[:, 0], e[:, 1], vals.astype("float32"), (n, n)


def local_mask(train_mask, rank, size):
    """labelled nodes of this worker (contiguous slice of the train ids)"""
    ids = np.where(train_mask)[0]
    mine = np.array_split(ids, size)[rank]
    m = np.zeros_like(train_mask)
    m[mine] = True
    return m
