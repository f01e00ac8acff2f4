import glob
import os

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

from . import dist


class ClipDataset(Dataset):
    """Pre-extracted clips stored as <root>/<split>/<class_idx>/<clip>.npy (T, H, W, 3) uint8."""

    def __init__(self, root, split, num_frames, size, train):
        self.files = sorted(glob.glob(os.path.join(root, split, "*", "*.npy")))
        self.labels = [int(os.path.basename(os.path.dirname(f))) for f in self.files]
        self.num_frames, self.size, self.train = num_frames, size, train

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        clip = np.load(self.files[i], mmap_mode="r")
        t = clip.shape[0]
        start = np.random.randint(0, max(1, t - self.num_frames)) if self.train else max(0, (t - self.num_frames) // 2)
        clip = np.asarray(clip[start:start + self.num_frames], dtype=np.float32) / 255.0
        x = torch.from_numpy(clip).permute(3, 0, 1, 2)
        x = torch.nn.functional.interpolate(x, size=(self.size, self.size), mode="bilinear", align_corners=False)
        if self.train and np.random.rand() < 0.5:
            x = x.flip(-1)
        return x, self.labels[i]


def build_loader(cfg, split, train):
    ds = ClipDataset(cfg["data"]["root"], split, cfg["data"]["num_frames"], cfg["data"]["size"], train)
    sampler = DistributedSampler(ds, num_replicas=dist.world_size(), rank=dist.rank(), shuffle=train,
                                 drop_last=False)
    loader = DataLoader(ds, batch_size=cfg["train"]["batch_size"], sampler=sampler,
                        num_workers=cfg["data"]["workers"], pin_memory=True, drop_last=train)
    return loader, sampler
