"""KiTS19 axial slices, preprocessed offline to one .npz per slice (keys: image, mask)."""
import glob
import os

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class KitsSlices(Dataset):
    def __init__(self, root, split, augment=False):
        self.files = sorted(glob.glob(os.path.join(root, split, "*.npz")))
        if not self.files:
            raise FileNotFoundError(f"no slices under {root}/{split}")
        self.augment = augment

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        d = np.load(self.files[i])
        img = d["image"].astype(np.float32)[None]
        mask = d["mask"].astype(np.int64)
        if self.augment and np.random.rand() < 0.5:
            img, mask = img[:, :, ::-1].copy(), mask[:, ::-1].copy()
        return torch.from_numpy(img), torch.from_numpy(mask)


def build_loaders(cfg, rank, world_size):
    train_set = KitsSlices(cfg["data_root"], "train", augment=True)
    val_set = KitsSlices(cfg["data_root"], "val")
    train_sampler = DistributedSampler(train_set, num_replicas=world_size, rank=rank, shuffle=True,
                                       seed=cfg["seed"], drop_last=True)
    val_sampler = DistributedSampler(val_set, num_replicas=world_size, rank=rank, shuffle=False)
    train_loader = DataLoader(train_set, batch_size=cfg["batch_size"], sampler=train_sampler,
                              num_workers=cfg["workers"], pin_memory=True, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=cfg["batch_size"], sampler=val_sampler,
                            num_workers=cfg["workers"])
    return train_loader, val_loader, train_sampler
