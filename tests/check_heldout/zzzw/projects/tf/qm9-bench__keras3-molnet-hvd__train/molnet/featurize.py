import numpy as np


def pad_molecules(path, max_atoms, target):
    """packed Z/R arrays -> dense (M, max_atoms) with an atom mask"""
    d = np.load(path)
    ptr = np.concatenate([[0], np.cumsum(d["N"])])
    M = len(d["N"])
    Z = np.zeros((M, max_atoms), np.int32)
    R = np.zeros((M, max_atoms, 3), np.float32)
    mask = np.zeros((M, max_atoms), np.float32)
    for m in range(M):
        a, b = ptr[m], ptr[m + 1]
        n = min(b - a, max_atoms)
        Z[m, :n], R[m, :n], mask[m, :n] = d["Z"][a:a + n], d["R"][a:a + n], 1.0
    y = d["y"][:, target].astype(np.float32)
    return Z, R, mask, y


def split(n, val_frac, seed=0):
    perm = np.random.RandomState(seed).permutation(n)
    n_val = int(n * val_frac)
    return perm[n_val:], perm[:n_val]
