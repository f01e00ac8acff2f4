import os

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class LogMelCrops(Dataset):
    """features/<split>_x.npy: (N, n_mels, frames) float16; <split>_y.npy: (N, n_classes) multi-hot."""

    def __init__(self, root, split):
        self.x = np.load(os.path.join(root, f"{split}_x.npy"), mmap_mode="r")
        self.y = np.load(os.path.join(root, f"{split}_y.npy"))

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        x = torch.from_numpy(np.asarray(self.x[i], dtype=np.float32)).unsqueeze(0)
        return x, torch.from_numpy(self.y[i].astype(np.float32))


def build_loader(root, split, batch_size, world_size, rank, workers):
    ds = LogMelCrops(root, split)
    train = split == "train"
    sampler = DistributedSampler(ds, num_replicas=world_size, rank=rank, shuffle=train)
    loader = DataLoader(ds, batch_size=batch_size, sampler=sampler, num_workers=workers,
                        pin_memory=True, drop_last=train)
    return loader, sampler
