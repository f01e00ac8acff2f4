import os

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, random_split
from torch.utils.data.distributed import DistributedSampler


class CellDataset(Dataset):
    def __init__(self, root):
        self.images = np.load(os.path.join(root, "images.npy"), mmap_mode="r")
        self.masks = np.load(os.path.join(root, "masks.npy"), mmap_mode="r")

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        x = torch.from_numpy(np.array(self.images[i], dtype=np.float32)[None] / 255.0)
        y = torch.from_numpy(np.array(self.masks[i], dtype=np.float32)[None])
        return x, y


def make_loaders(cfg, rank, world_size):
    full = CellDataset(cfg.data)
    n_val = int(len(full) * cfg.val_fraction)
    # same generator seed on every rank -> identical split everywhere
    train_set, val_set = random_split(full, [len(full) - n_val, n_val],
                                      generator=torch.Generator().manual_seed(cfg.seed))
    train_sampler = DistributedSampler(train_set, num_replicas=world_size, rank=rank, shuffle=True, seed=cfg.seed)
    val_sampler = DistributedSampler(val_set, num_replicas=world_size, rank=rank, shuffle=False)
    train_loader = DataLoader(train_set, batch_size=cfg.batch_size, sampler=train_sampler,
                              num_workers=cfg.num_workers, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=cfg.batch_size, sampler=val_sampler,
                            num_workers=cfg.num_workers)
    return train_loader, val_loader
