import glob
import os

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd


class CTPatchDataset(Dataset):
    """Random axial patches from preprocessed cases (case_XXX.npz with `image` and `mask`)."""

    def __init__(self, files, patch, patches_per_case, seed):
        self.files = files
        self.patch = patch
        rng = np.random.default_rng(seed)
        self.index = []
        for fi, f in enumerate(files):
            with np.load(f) as z:
                depth, h, w = z["image"].shape
            for _ in range(patches_per_case):
                self.index.append((fi, int(rng.integers(depth)), int(rng.integers(0, h - patch + 1)),
                                   int(rng.integers(0, w - patch + 1))))

    def __len__(self):
        return len(self.index)

    def __getitem__(self, i):
        fi, z, y, x = self.index[i]
        with np.load(self.files[fi]) as d:
            img = d["image"][z, y:y + self.patch, x:x + self.patch].astype(np.float32)
            msk = d["mask"][z, y:y + self.patch, x:x + self.patch].astype(np.int64)
        img = np.clip((img + 200.0) / 500.0, 0.0, 1.0)
        return torch.from_numpy(img)[None], torch.from_numpy(msk)


def split_cases(root, val_fraction=0.2):
    files = sorted(glob.glob(os.path.join(root, "case_*.npz")))
    n_val = max(1, int(len(files) * val_fraction))
    return files[n_val:], files[:n_val]


def make_loaders(cfg):
    train_files, val_files = split_cases(cfg.data_root)
    train_ds = CTPatchDataset(train_files, cfg.patch, cfg.patches_per_case, cfg.seed)
    val_ds = CTPatchDataset(val_files, cfg.patch, cfg.patches_per_case, cfg.seed + 1)
    # one shard per GPU
    train_sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.local_rank(),
                                       shuffle=True, seed=cfg.seed)
    val_sampler = DistributedSampler(val_ds, num_replicas=hvd.size(), rank=hvd.local_rank(), shuffle=False)
    train_loader = DataLoader(train_ds, batch_size=cfg.batch_size, sampler=train_sampler,
                              num_workers=cfg.workers, pin_memory=True, drop_last=True)
    val_loader = DataLoader(val_ds, batch_size=cfg.batch_size, sampler=val_sampler,
                            num_workers=cfg.workers)
    return train_loader, val_loader, train_sampler
