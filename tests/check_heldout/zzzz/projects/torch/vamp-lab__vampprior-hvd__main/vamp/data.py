import numpy as np
import torch


class ShardedBatches:
    """Hand-rolled partition: same permutation on every worker (shared seed),
    worker r takes positions r, r+size, r+2*size, ..."""

    def __init__(self, x, batch_size, rank, size, seed, shuffle=True):
        self.x = x
        self.bs = batch_size
        self.rank, self.size = rank, size
        self.seed, self.shuffle = seed, shuffle
        self.epoch = 0
        self.n_local = len(x) // size

    def set_epoch(self, e):
        self.epoch = e

    def __len__(self):
        return self.n_local // self.bs

    def __iter__(self):
        if self.shuffle:
            perm = np.random.RandomState(self.seed + self.epoch).permutation(len(self.x))
        else:
            perm = np.arange(len(self.x))
        mine = perm[self.rank::self.size][: self.n_local]
        for i in range(len(self)):
            idx = mine[i * self.bs:(i + 1) * self.bs]
            yield torch.from_numpy(self.x[idx])


def load(path):
    d = np.load(path)
    tr = d["train"].astype(np.float32).reshape(-1, 784)
    te = d["test"].astype(np.float32).reshape(-1, 784)
    return tr, te
