import glob
import os

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class S3DISBlocks(Dataset):
    """Pre-cut 1m x 1m blocks stored as area_{k}_*.npy arrays of (N, 10): xyz rgb normxyz label."""

    def __init__(self, root, test_area, split, num_points):
        files = sorted(glob.glob(os.path.join(root, "area_*.npy")))
        tag = f"area_{test_area}_"
        self.files = [f for f in files if (tag in os.path.basename(f)) == (split == "test")]
        self.num_points = num_points
        self.train = split == "train"

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        block = np.load(self.files[i])
        replace = len(block) < self.num_points
        idx = np.random.choice(len(block), self.num_points, replace=replace)
        pts = block[idx]
        feats = pts[:, :9].astype(np.float32)
        if self.train:
            theta = np.random.uniform(0, 2 * np.pi)
            c, s = np.cos(theta), np.sin(theta)
            feats[:, :2] = feats[:, :2] @ np.array([[c, -s], [s, c]], dtype=np.float32)
        return torch.from_numpy(feats.T.copy()), torch.from_numpy(pts[:, 9].astype(np.int64))


def build_loaders(cfg, world_size, rank):
    d = cfg["data"]
    train_set = S3DISBlocks(d["root"], d["test_area"], "train", d["num_points"])
    test_set = S3DISBlocks(d["root"], d["test_area"], "test", d["num_points"])
    train_sampler = DistributedSampler(train_set, world_size, rank, shuffle=True, drop_last=True)
    test_sampler = DistributedSampler(test_set, world_size, rank, shuffle=False)
    bs = cfg["train"]["batch_size"]
    train_loader = DataLoader(train_set, bs, sampler=train_sampler, num_workers=d["workers"],
                              pin_memory=True, drop_last=True, persistent_workers=d["workers"] > 0)
    test_loader = DataLoader(test_set, bs, sampler=test_sampler, num_workers=d["workers"], pin_memory=True)
    return train_loader, test_loader
