import os

import numpy as np
import torch
from torch.utils.data import Dataset


def normalize(pc):
    pc = pc - pc.mean(axis=0)
    return pc / np.max(np.linalg.norm(pc, axis=1))


class ModelNet40(Dataset):
    """Pre-sampled ModelNet40 point clouds stored as (N, 2048, 3) float arrays."""

    def __init__(self, root, split="train", npoints=1024, augment=False):
        self.points = np.load(os.path.join(root, f"{split}_points.npy"), mmap_mode="r")
        self.labels = np.load(os.path.join(root, f"{split}_labels.npy")).astype(np.int64).reshape(-1)
        self.npoints, self.augment = npoints, augment

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        pc = normalize(np.array(self.points[i][: self.npoints], dtype=np.float32))
        if self.augment:
            pc = pc * np.random.uniform(0.8, 1.25, size=(1, 3)) + np.random.uniform(-0.1, 0.1, size=(1, 3))
            np.random.shuffle(pc)
        return torch.from_numpy(pc.astype(np.float32)), torch.tensor(self.labels[i])
