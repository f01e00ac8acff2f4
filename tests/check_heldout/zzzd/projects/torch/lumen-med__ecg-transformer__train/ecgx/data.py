import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class PTBXLWindows(Dataset):
    """12-lead ECG windows (250 Hz, 10 s) with 5 diagnostic super-classes (multi-label)."""

    def __init__(self, path=None, split="train", n=800):
        if path is None:
            rng = np.random.default_rng({"train": 0, "val": 1}[split])
            self.x = rng.standard_normal((n, 12, 1000)).astype(np.float32)
            self.y = (rng.random((n, 5)) > 0.7).astype(np.float32)
        else:
            blob = np.load(f"{path}/{split}.npz")
            self.x, self.y = blob["x"], blob["y"]

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return torch.from_numpy(self.x[i]), torch.from_numpy(self.y[i])


def make_loaders(cfg, rank, world, seed):
    train_set = PTBXLWindows(cfg.data, "train")
    val_set = PTBXLWindows(cfg.data, "val", n=200)
    sampler = DistributedSampler(train_set, num_replicas=world, rank=rank, shuffle=True, seed=seed)
    train_loader = DataLoader(train_set, batch_size=cfg.batch_size, sampler=sampler,
                              num_workers=cfg.workers, drop_last=True)
    # validation is small: every rank scores the whole split
    val_loader = DataLoader(val_set, batch_size=64, shuffle=False, num_workers=cfg.workers)
    return train_loader, val_loader
