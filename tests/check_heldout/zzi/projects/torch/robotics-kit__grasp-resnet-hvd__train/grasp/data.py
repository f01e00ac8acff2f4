"""Grasp-success dataset: depth crops (1x96x96) + binary success label, stored as shards of .npz."""
import glob
import os

import numpy as np
import torch
from torch.utils.data import ConcatDataset, DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class GraspShard(Dataset):
    def __init__(self, path, augment=False):
        with np.load(path) as z:
            self.depth = z["depth"].astype(np.float32)
            self.label = z["success"].astype(np.float32)
        self.augment = augment

    def __len__(self):
        return len(self.label)

    def __getitem__(self, i):
        d = torch.from_numpy(self.depth[i]).unsqueeze(0)
        if self.augment and torch.rand(()) < 0.5:
            d = torch.flip(d, dims=[2])
        return d, torch.tensor(self.label[i])


def load_split(root, split, augment):
    files = sorted(glob.glob(os.path.join(root, split, "*.npz")))
    return ConcatDataset([GraspShard(f, augment) for f in files])


def build_loaders(cfg, rank, world_size):
    train_set = load_split(cfg.data_root, "train", augment=True)
    val_set = load_split(cfg.data_root, "val", augment=False)
    train_sampler = DistributedSampler(train_set, num_replicas=world_size, rank=rank,
                                       shuffle=True, seed=cfg.seed + rank, drop_last=True)
    val_sampler = DistributedSampler(val_set, num_replicas=world_size, rank=rank, shuffle=False)
    kw = dict(batch_size=cfg.batch_size, num_workers=cfg.workers, pin_memory=True)
    train_loader = DataLoader(train_set, sampler=train_sampler, drop_last=True, **kw)
    val_loader = DataLoader(val_set, sampler=val_sampler, **kw)
    return train_loader, val_loader, train_sampler
