import numpy as np
import torch
from torch.utils.data import Dataset


class PairDataset(Dataset):
    """Fixed list of (i, j, same) pairs, half positive, drawn once with a fixed seed."""

    def __init__(self, x, y, n_pairs, seed=0):
        rng = np.random.default_rng(seed)
        self.x = torch.from_numpy(x.astype(np.float32) / 255.0)
        y = np.asarray(y)
        by_class = {c: np.flatnonzero(y == c) for c in np.unique(y)}
        classes = list(by_class)
        pairs = []
        for n in range(n_pairs):
            if n % 2 == 0:
                c = rng.choice(classes)
                i, j = rng.choice(by_class[c], 2, replace=False)
                pairs.append((i, j, 1.0))
            else:
                a, b = rng.choice(classes, 2, replace=False)
                pairs.append((rng.choice(by_class[a]), rng.choice(by_class[b]), 0.0))
        self.pairs = pairs

    def __len__(self):
        return len(self.pairs)

    def __getitem__(self, n):
        i, j, same = self.pairs[n]
        return self.x[i], self.x[j], torch.tensor(same)
