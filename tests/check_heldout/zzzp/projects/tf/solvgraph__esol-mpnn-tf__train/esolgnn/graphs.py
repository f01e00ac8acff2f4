import os
import pickle

import numpy as np
import tensorflow as tf

N_ATOM, N_BOND = 30, 6
SIZES = {"esol": 1128, "freesolv": 642, "lipo": 4200}


def load_graphs(opt):
    f = os.path.join(opt.data_dir, opt.dataset + "_graphs.pkl")
    if os.path.exists(f):
        with open(f, "rb") as fh:
            return pickle.load(fh)
    rs = np.random.RandomState(opt.seed)
    gs = []
    for _ in range(SIZES[opt.dataset]):
        n = rs.randint(3, 40)
        e = rs.randint(n - 1, 2 * n)
        gs.append(dict(atoms=rs.rand(n, N_ATOM).astype("float32"),
                       bonds=rs.rand(e, N_BOND).astype("float32"),
                       pairs=rs.randint(0, n, (e, 2)).astype("int32"),
                       y=np.float32(rs.randn())))
    return gs


def collate(graphs, ids):
    atoms, bonds, src, dst, gid, ys = [], [], [], [], [], []
    off = 0
    for k, i in enumerate(ids):
        g = graphs[int(i)]
        n = len(g["atoms"])
        atoms.append(g["atoms"]); bonds.append(g["bonds"])
        src.append(g["pairs"][:, 0] + off); dst.append(g["pairs"][:, 1] + off)
        gid.append(np.full(n, k, "int32")); ys.append(g["y"])
        off += n
    return dict(atoms=np.concatenate(atoms), bonds=np.concatenate(bonds), src=np.concatenate(src),
                dst=np.concatenate(dst), gid=np.concatenate(gid), n_graphs=len(ids)), np.array(ys, "float32")


def batched(graphs, id_ds, batch_size):
    """id_ds: tf.data.Dataset of graph indices -> python generator of collated batches"""
    for ids in id_ds.batch(batch_size):
        feats, y = collate(graphs, ids.numpy())
        yield {k: tf.constant(v) for k, v in feats.items()}, tf.constant(y)
