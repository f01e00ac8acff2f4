import numpy as np
import torch

LABELS = ["yes", "no", "up", "down", "left", "right", "on", "off", "stop", "go", "_unknown_", "_silence_"]


class KeywordFeatures(torch.utils.data.Dataset):
    """Pre-computed 40x101 log-mel features stored in one .npz per split."""

    def __init__(self, npz_path, augment=False):
        blob = np.load(npz_path)
        self.x, self.y = blob["features"].astype(np.float32), blob["labels"].astype(np.int64)
        self.augment = augment

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        x = torch.from_numpy(self.x[i])
        if self.augment:
            t0 = np.random.randint(0, x.shape[1] - 10)
            x = x.clone()
            x[:, t0:t0 + np.random.randint(0, 10)] = 0.0
        return x, self.y[i]


def epoch_partition(n, rank, world, epoch, seed):
    """Same permutation on every worker, each takes its contiguous block (equal sizes)."""
    perm = np.random.RandomState(seed + epoch).permutation(n)
    per_rank = n // world
    return perm[rank * per_rank:(rank + 1) * per_rank].tolist()
