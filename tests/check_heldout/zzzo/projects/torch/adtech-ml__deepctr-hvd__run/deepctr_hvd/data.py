import glob

import numpy as np
import torch


def list_parts(pattern):
    return sorted(glob.glob(pattern))


def parts_for_rank(parts, rank, size):
    # contiguous blocks of day partitions
    per = int(np.ceil(len(parts) / float(size)))
    return parts[rank * per:(rank + 1) * per]


def count_rows(parts):
    return sum(len(np.load(p)["label"]) for p in parts)


def iterate(parts, batch_size, field_sizes, shuffle=True, seed=0, drop_last=True):
    rng = np.random.RandomState(seed)
    offs = np.cumsum([0] + list(field_sizes[:-1]))
    order = rng.permutation(len(parts)) if shuffle else range(len(parts))
    for k in order:
        z = np.load(parts[k])
        x = (z["ids"] % np.asarray(field_sizes)) + offs
        y = z["label"].astype(np.float32)
        idx = rng.permutation(len(y)) if shuffle else np.arange(len(y))
        stop = len(idx) - batch_size + 1 if drop_last else len(idx)
        for s in range(0, stop, batch_size):
            b = idx[s:s + batch_size]
            yield torch.from_numpy(x[b].astype(np.int64)), torch.from_numpy(y[b])
