import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, Subset


class FeatureBank(Dataset):
    """Pre-computed log-mel features stored as one .npz (feats [N, T, M], labels [N])."""

    def __init__(self, path=None, n=1200, frames=49, n_mels=40, n_classes=12):
        if path:
            blob = np.load(path)
            self.feats, self.labels = blob["feats"], blob["labels"]
        else:  # synthetic bank for CI
            rng = np.random.default_rng(0)
            self.feats = rng.standard_normal((n, frames, n_mels), dtype=np.float32)
            self.labels = rng.integers(0, n_classes, n)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return torch.from_numpy(self.feats[i]), int(self.labels[i])


def rank_subset(dataset, rank, world, epoch, seed=0):
    """Same permutation on every rank, then a strided slice; equal length on all ranks."""
    perm = np.random.default_rng(seed + epoch).permutation(len(dataset))
    usable = len(perm) - len(perm) % world
    return Subset(dataset, perm[:usable][rank::world].tolist())


def loader_for_epoch(dataset, rank, world, epoch, batch_size, drop_last=True):
    return DataLoader(rank_subset(dataset, rank, world, epoch), batch_size=batch_size,
                      shuffle=False, drop_last=drop_last, num_workers=2)
