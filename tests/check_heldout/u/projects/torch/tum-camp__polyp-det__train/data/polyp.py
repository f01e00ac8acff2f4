import glob
import os

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

MEAN = np.array([0.485, 0.456, 0.406], np.float32)[:, None, None]
STD = np.array([0.229, 0.224, 0.225], np.float32)[:, None, None]


class PolypFrames(Dataset):
    """Colonoscopy frames (Kvasir-SEG + CVC-ClinicDB + our negatives), one npz per frame."""

    def __init__(self, root, split):
        self.files = sorted(glob.glob(os.path.join(root, split, "*.npz")))

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        d = np.load(self.files[i])
        img = (d["image"].astype(np.float32) / 255.0 - MEAN) / STD
        return (torch.from_numpy(img), torch.tensor(float(d["has_polyp"])),
                torch.from_numpy(d["box"].astype(np.float32)))


def build_loader(root, split, batch_size, world_size, rank, workers=4):
    ds = PolypFrames(root, split)
    train = split == "train"
    sampler = DistributedSampler(ds, num_replicas=world_size, rank=rank, shuffle=train)
    return DataLoader(ds, batch_size=batch_size, sampler=sampler, num_workers=workers,
                      drop_last=train, pin_memory=True), sampler
