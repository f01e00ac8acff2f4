import csv

import numpy as np

AMINO = "ACDEFGHIKLMNPQRSTVWY"
IDX = {a: i for i, a in enumerate(AMINO)}


def read_variants(path):
    """CSV with columns sequence, log_kcat_km."""
    seqs, ys = [], []
    with open(path, newline="") as fh:
        for row in csv.DictReader(fh):
            seqs.append(row["sequence"])
            ys.append(float(row["log_kcat_km"]))
    return seqs, np.asarray(ys, dtype=np.float32)


def one_hot(seqs, length):
    x = np.zeros((len(seqs), length, len(AMINO)), dtype=np.float32)
    for n, s in enumerate(seqs):
        for i, a in enumerate(s[:length]):
            j = IDX.get(a)
            if j is not None:
                x[n, i, j] = 1.0
    return x


def random_split(n, val_fraction, seed):
    perm = np.random.RandomState(seed).permutation(n)
    n_val = int(n * val_fraction)
    return perm[n_val:], perm[:n_val]
