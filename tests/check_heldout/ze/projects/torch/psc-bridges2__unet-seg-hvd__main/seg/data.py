import glob
import os

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

import horovod.torch as hvd


class CellTiles(Dataset):
    def __init__(self, root, split):
        self.files = sorted(glob.glob(os.path.join(root, split, "*.npz")))

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        d = np.load(self.files[i])
        img = torch.from_numpy(d["image"]).float().unsqueeze(0) / 255.0
        mask = torch.from_numpy(d["mask"]).long()
        return img, mask


def build_loaders(cfg):
    train_set, val_set = CellTiles(cfg.data_root, "train"), CellTiles(cfg.data_root, "val")
    train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank())
    val_sampler = DistributedSampler(val_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_set, batch_size=cfg.batch_size, sampler=train_sampler,
                              num_workers=cfg.num_workers, pin_memory=True)
    val_loader = DataLoader(val_set, batch_size=cfg.batch_size, sampler=val_sampler,
                            num_workers=cfg.num_workers)
    return train_loader, val_loader, train_sampler
