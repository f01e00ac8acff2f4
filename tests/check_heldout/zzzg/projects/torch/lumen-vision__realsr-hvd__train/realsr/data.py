import glob
import os
import random

import numpy as np
import torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

from .degradations import degrade


def _to_tensor(arr):
    return torch.from_numpy(np.ascontiguousarray(arr.transpose(2, 0, 1))).float()


class PairedPatchDataset(Dataset):
    """HR images on disk; LR made on the fly by the degradation chain."""

    def __init__(self, root, scale=4, patch=32):
        self.files = sorted(glob.glob(os.path.join(root, "*.png")))
        self.scale, self.patch = scale, patch

    def __len__(self):
        return len(self.files)

    def __getitem__(self, idx):
        hr = Image.open(self.files[idx]).convert("RGB")
        size = self.patch * self.scale
        x = random.randint(0, hr.width - size)
        y = random.randint(0, hr.height - size)
        hr = hr.crop((x, y, x + size, y + size))
        if random.random() < 0.5:
            hr = hr.transpose(Image.FLIP_LEFT_RIGHT)
        lr = degrade(hr, self.scale)
        return _to_tensor(lr), _to_tensor(np.asarray(hr, dtype=np.float32) / 255.0)


class FullImageDataset(PairedPatchDataset):
    def __getitem__(self, idx):
        hr = Image.open(self.files[idx]).convert("RGB")
        w, h = (hr.width // self.scale) * self.scale, (hr.height // self.scale) * self.scale
        hr = hr.crop((0, 0, w, h))
        lr = hr.resize((w // self.scale, h // self.scale), Image.BICUBIC)
        to = lambda im: _to_tensor(np.asarray(im, dtype=np.float32) / 255.0)
        return to(lr), to(hr)


def build_loaders(cfg, world_size, rank):
    train_set = PairedPatchDataset(cfg.train_dir, cfg.scale, cfg.patch_size)
    val_set = FullImageDataset(cfg.val_dir, cfg.scale)
    train_sampler = DistributedSampler(train_set, num_replicas=world_size, rank=rank, shuffle=True)
    val_sampler = DistributedSampler(val_set, num_replicas=world_size, rank=rank, shuffle=False)
    train_loader = DataLoader(train_set, batch_size=cfg.batch_size, sampler=train_sampler,
                              num_workers=cfg.workers, drop_last=True, pin_memory=True)
    val_loader = DataLoader(val_set, batch_size=1, sampler=val_sampler, num_workers=1)
    return train_loader, val_loader, train_sampler
