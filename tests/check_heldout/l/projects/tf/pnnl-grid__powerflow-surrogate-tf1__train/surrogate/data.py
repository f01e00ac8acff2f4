import numpy as np


def load_split(path):
    """npz with `x` (N, 2*n_bus) P/Q injections and `y` (N, 2*n_bus) |V| and angle, normalised."""
    d = np.load(path)
    return d["x"].astype(np.float32), d["y"].astype(np.float32), int(d["n_bus"])


def shard(x, y, rank, size):
    """Contiguous block per worker (samples are i.i.d. operating points, order does not matter)."""
    per = len(x) // size
    lo = rank * per
    return x[lo:lo + per], y[lo:lo + per]


class BatchIterator:
    def __init__(self, x, y, batch_size, seed):
        self.x, self.y, self.bs = x, y, batch_size
        self.rng = np.random.RandomState(seed)
        self._new_epoch()

    def _new_epoch(self):
        self.order = self.rng.permutation(len(self.x))
        self.pos = 0

    def next(self):
        if self.pos + self.bs > len(self.order):
            self._new_epoch()
        idx = self.order[self.pos:self.pos + self.bs]
        self.pos += self.bs
        return self.x[idx], self.y[idx]
