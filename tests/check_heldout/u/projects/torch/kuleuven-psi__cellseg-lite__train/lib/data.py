import glob
import os

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class CellCrops(Dataset):
    def __init__(self, root, split, crop=128):
        self.files = sorted(glob.glob(os.path.join(root, split, "*.npz")))
        self.crop, self.train = crop, split == "train"

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        d = np.load(self.files[i])
        img, lab = d["image"].astype(np.float32), d["label"].astype(np.int64)
        h, w = lab.shape
        y0 = np.random.randint(0, h - self.crop + 1) if self.train else (h - self.crop) // 2
        x0 = np.random.randint(0, w - self.crop + 1) if self.train else (w - self.crop) // 2
        img = img[:, y0:y0 + self.crop, x0:x0 + self.crop]
        lab = lab[y0:y0 + self.crop, x0:x0 + self.crop]
        return torch.from_numpy(np.ascontiguousarray(img)), torch.from_numpy(np.ascontiguousarray(lab))


def make_loader(cfg, split, num_replicas, rank):
    ds = CellCrops(cfg.data_dir, split)
    sampler = DistributedSampler(ds, num_replicas=num_replicas, rank=rank, shuffle=(split == "train"),
                                 seed=cfg.seed)
    return DataLoader(ds, batch_size=cfg.batch_size, sampler=sampler, num_workers=cfg.workers,
                      drop_last=(split == "train"))
