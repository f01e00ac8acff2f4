import glob
import os
import random

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class LogMelClips(Dataset):
    """Pre-computed log-mel features (*.npy, shape [T, n_mels]); two random crops per clip."""

    def __init__(self, root, crop_frames=200):
        self.files = sorted(glob.glob(os.path.join(root, "**", "*.npy"), recursive=True))
        self.crop = crop_frames

    def __len__(self):
        return len(self.files)

    def _crop(self, feats):
        if feats.shape[0] <= self.crop:
            pad = self.crop - feats.shape[0]
            return np.pad(feats, ((0, pad), (0, 0)))
        start = random.randint(0, feats.shape[0] - self.crop)
        return feats[start:start + self.crop]

    def __getitem__(self, i):
        feats = np.load(self.files[i]).astype(np.float32)
        a, b = self._crop(feats), self._crop(feats)
        return torch.from_numpy(a), torch.from_numpy(b)


def make_loaders(cfg, rank, world):
    train_set = LogMelClips(os.path.join(cfg["data_root"], "train"), cfg["crop_frames"])
    dev_set = LogMelClips(os.path.join(cfg["data_root"], "dev"), cfg["crop_frames"])
    train_sampler = DistributedSampler(train_set, num_replicas=world, rank=rank, shuffle=True,
                                       seed=cfg["seed"])
    dev_sampler = DistributedSampler(dev_set, num_replicas=world, rank=rank, shuffle=False)
    train_loader = DataLoader(train_set, batch_size=cfg["batch_size"], sampler=train_sampler,
                              num_workers=cfg["workers"], drop_last=True, pin_memory=True)
    dev_loader = DataLoader(dev_set, batch_size=cfg["batch_size"], sampler=dev_sampler,
                            num_workers=cfg["workers"])
    return train_loader, dev_loader, train_sampler
