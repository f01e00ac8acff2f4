"""NYUv2-style scenes pre-packed as npz files: rgb uint8 HxWx3, seg uint8 HxW (255 = void), depth float32 HxW."""
import glob
import os

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class SceneDataset(Dataset):
    def __init__(self, root, split, crop=(288, 384), train=True):
        self.files = sorted(glob.glob(os.path.join(root, split, "*.npz")))
        if not self.files:
            raise FileNotFoundError(f"no npz scenes in {os.path.join(root, split)}")
        self.crop, self.train = crop, train

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        d = np.load(self.files[i])
        rgb, seg, depth = d["rgb"], d["seg"], d["depth"]
        h, w = seg.shape
        ch, cw = self.crop
        if self.train:
            y, x = np.random.randint(0, h - ch + 1), np.random.randint(0, w - cw + 1)
        else:
            y, x = (h - ch) // 2, (w - cw) // 2
        rgb, seg, depth = rgb[y:y + ch, x:x + cw], seg[y:y + ch, x:x + cw], depth[y:y + ch, x:x + cw]
        if self.train and np.random.rand() < 0.5:
            rgb, seg, depth = rgb[:, ::-1], seg[:, ::-1], depth[:, ::-1]
        rgb = (rgb.astype(np.float32) / 255.0 - 0.5) / 0.25
        return {"image": torch.from_numpy(np.ascontiguousarray(rgb.transpose(2, 0, 1))),
                "seg": torch.from_numpy(np.ascontiguousarray(seg)).long(),
                "depth": torch.from_numpy(np.ascontiguousarray(depth)).float()}


def make_loader(root, split, batch_size, num_replicas, rank, workers=4, crop=(288, 384)):
    train = split == "train"
    ds = SceneDataset(root, split, crop=crop, train=train)
    sampler = DistributedSampler(ds, num_replicas=num_replicas, rank=rank, shuffle=train)
    return DataLoader(ds, batch_size=batch_size, sampler=sampler, num_workers=workers,
                      pin_memory=True, drop_last=train), sampler
