import glob
import os

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


def gaussian_heatmap(points, shape, stride=4, sigma=2.0):
    h, w = shape[0] // stride, shape[1] // stride
    yy, xx = np.mgrid[0:h, 0:w]
    heat = np.zeros((h, w), np.float32)
    for y, x in points:
        heat = np.maximum(heat, np.exp(-((yy - y / stride) ** 2 + (xx - x / stride) ** 2) / (2 * sigma ** 2)))
    return heat


class NucleiFields(Dataset):
    """One npz per field of view: `dapi` (H, W) uint16, `centroids` (K, 2)."""

    def __init__(self, folder, train):
        self.files = sorted(glob.glob(os.path.join(folder, "*.npz")))
        self.train = train

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        with np.load(self.files[i]) as z:
            img = z["dapi"].astype(np.float32)
            pts = z["centroids"].astype(np.float32)
        img = (img - img.mean()) / (img.std() + 1e-6)
        if self.train and np.random.rand() < 0.5:
            img = img[:, ::-1]
            pts[:, 1] = img.shape[1] - 1 - pts[:, 1]
        heat = gaussian_heatmap(pts, img.shape)
        return torch.from_numpy(np.ascontiguousarray(img))[None], torch.from_numpy(heat)[None]


def build_loaders(root, batch_size, rank, world):
    train_ds = NucleiFields(os.path.join(root, "train"), train=True)
    val_ds = NucleiFields(os.path.join(root, "val"), train=False)
    train_sampler = DistributedSampler(train_ds, num_replicas=world, rank=rank, shuffle=True)
    val_sampler = DistributedSampler(val_ds, num_replicas=world, rank=rank, shuffle=False)
    train_loader = DataLoader(train_ds, batch_size=batch_size, sampler=train_sampler, num_workers=4, drop_last=True)
    val_loader = DataLoader(val_ds, batch_size=batch_size, sampler=val_sampler, num_workers=2)
    return train_loader, val_loader, train_sampler
