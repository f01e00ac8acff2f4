import glob
import os

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class SleepEpochs(Dataset):
    """fold<k>_<split>.npz with x: (N, 3000) float32 EEG epochs, y: (N,) stages 0..4 (W, N1, N2, N3, REM)."""

    def __init__(self, root, fold, split):
        files = sorted(glob.glob(os.path.join(root, f"fold{fold}_{split}*.npz")))
        if not files:
            raise FileNotFoundError(f"no fold{fold}_{split}*.npz in {root}")
        xs, ys = zip(*[(z["x"], z["y"]) for z in map(np.load, files)])
        self.x = torch.from_numpy(np.concatenate(xs).astype(np.float32)).unsqueeze(1)
        self.y = torch.from_numpy(np.concatenate(ys).astype(np.int64))

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i]

    def class_weights(self):
        counts = torch.bincount(self.y, minlength=5).float().clamp(min=1)
        return counts.sum() / (5 * counts)


def make_loader(ds, batch_size, rank, world_size, train):
    sampler = DistributedSampler(ds, num_replicas=world_size, rank=rank, shuffle=train, drop_last=train)
    return DataLoader(ds, batch_size=batch_size, sampler=sampler, drop_last=train), sampler
