import numpy as np
import torch


def load(path):
    z = np.load(path)
    return (torch.from_numpy(z["x_train"]).float(), torch.from_numpy(z["y_train"]).long(),
            torch.from_numpy(z["x_test"]).float(), torch.from_numpy(z["y_test"]).long())


class RankBatches:
    """Every rank draws the same permutation (shared seed) and takes its own slice of each
    global batch, so the ranks cover disjoint samples and run the same number of steps."""

    def __init__(self, x, y, global_batch, rank, size, seed=0):
        assert global_batch % size == 0, "global batch must divide evenly"
        self.x, self.y = x, y
        self.gb, self.rank, self.size, self.seed = global_batch, rank, size, seed
        self.local = global_batch // size
        self.epoch = 0

    def __len__(self):
        return len(self.x) // self.gb

    def __iter__(self):
        g = torch.Generator().manual_seed(self.seed + self.epoch)
        perm = torch.randperm(len(self.x), generator=g)
        self.epoch += 1
        for b in range(len(self)):
            idx = perm[b * self.gb:(b + 1) * self.gb][self.rank * self.local:(self.rank + 1) * self.local]
            yield self.x[idx], self.y[idx]
