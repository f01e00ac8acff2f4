import os

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class TileDataset(Dataset):
    """Tiles stored as one uint8 array (N, H, W, 3) plus integer labels, per split."""

    def __init__(self, root, split, augment=False):
        self.images = np.load(os.path.join(root, split, "tiles.npy"), mmap_mode="r")
        self.labels = np.load(os.path.join(root, split, "labels.npy"))
        self.augment = augment

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        img = torch.from_numpy(np.ascontiguousarray(self.images[i])).permute(2, 0, 1).float() / 255.0
        if self.augment and torch.rand(()) < 0.5:
            img = img.flip(-1)
        return img, int(self.labels[i])


def build_loaders(args, world_size, rank):
    train_ds = TileDataset(args.data_root, "train", augment=True)
    val_ds = TileDataset(args.data_root, "val")
    train_sampler = DistributedSampler(train_ds, num_replicas=world_size, rank=rank, shuffle=True,
                                       seed=args.seed, drop_last=True)
    val_sampler = DistributedSampler(val_ds, num_replicas=world_size, rank=rank, shuffle=False)
    train_loader = DataLoader(train_ds, batch_size=args.batch_size, sampler=train_sampler,
                              num_workers=args.workers, drop_last=True)
    val_loader = DataLoader(val_ds, batch_size=args.batch_size * 2, sampler=val_sampler,
                            num_workers=args.workers)
    return train_loader, val_loader, train_sampler
