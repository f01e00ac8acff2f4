import os

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

import horovod.torch as hvd


class TileSet(Dataset):
    """Pre-cut 128x128 tiles stored as one npz per split (images uint8 NHWC, masks uint8 NHW)."""

    def __init__(self, root, split):
        blob = np.load(os.path.join(root, f"{split}.npz"))
        self.images, self.masks = blob["images"], blob["masks"]

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        img = torch.from_numpy(self.images[i]).permute(2, 0, 1).float() / 255.0
        return img, torch.from_numpy(self.masks[i]).long()


def build_loaders(root, batch_size, workers):
    train_set, val_set = TileSet(root, "train"), TileSet(root, "val")
    train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    val_sampler = DistributedSampler(val_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_set, batch_size=batch_size, sampler=train_sampler,
                              num_workers=workers, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=batch_size, sampler=val_sampler, num_workers=workers)
    return train_loader, val_loader, train_sampler
