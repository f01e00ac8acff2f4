import glob
import os

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class RangeImages(Dataset):
    """KITTI-style scans already projected to 64 x 1024 range images (.npy, 2 channels)."""

    MAX_RANGE = 80.0

    def __init__(self, root):
        self.files = sorted(glob.glob(os.path.join(root, "**", "*.npy"), recursive=True))
        if not self.files:
            raise FileNotFoundError(f"no range images under {root}")

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        img = np.load(self.files[i]).astype(np.float32)
        img[0] = np.clip(img[0] / self.MAX_RANGE, 0, 1)
        img = img * 2 - 1
        if np.random.rand() < 0.5:
            img = img[:, :, ::-1].copy()
        return torch.from_numpy(img)


def make_loader(root, batch_size, rank, world, workers=4):
    ds = RangeImages(root)
    sampler = DistributedSampler(ds, num_replicas=world, rank=rank, shuffle=True, drop_last=True)
    return DataLoader(ds, batch_size=batch_size, sampler=sampler, num_workers=workers,
                      drop_last=True, pin_memory=True, persistent_workers=workers > 0)
