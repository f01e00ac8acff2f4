import glob
import random

import numpy as np
import torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

from .degrade import second_order


class RealPairs(Dataset):
    def __init__(self, pattern, gt_size):
        self.paths = sorted(glob.glob(pattern))
        self.gt_size = gt_size

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        img = np.asarray(Image.open(self.paths[i]).convert("RGB"), np.float32) / 255.0
        top = random.randint(0, img.shape[0] - self.gt_size)
        left = random.randint(0, img.shape[1] - self.gt_size)
        gt = torch.from_numpy(img[top:top + self.gt_size, left:left + self.gt_size].copy()).permute(2, 0, 1)
        return second_order(gt), gt


def train_loader(pattern, gt_size, batch, rank, world):
    ds = RealPairs(pattern, gt_size)
    sampler = DistributedSampler(ds, num_replicas=world, rank=rank)
    return DataLoader(ds, batch, sampler=sampler, drop_last=True, num_workers=2), sampler
