import os
import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader
from torch.utils.data.distributed import DistributedSampler


class NpyImages(Dataset):
    """images stored as one uint8 array N x H x W x 3 (made by tools/pack.py)"""

    def __init__(self, root, res):
        path = os.path.join(root, "images_%d.npy" % res)
        if os.path.exists(path):
            self.arr = np.load(path, mmap_mode="r")
        else:
            print("[datasets] %s not found, using noise" % path)
            self.arr = (np.random.RandomState(0).rand(256, res, res, 3) * 255).astype(np.uint8)

    def __len__(self):
        return len(self.arr)

    def __getitem__(self, i):
        x = torch.from_numpy(np.array(self.arr[i])).permute(2, 0, 1).float()
        return x / 127.5 - 1.0


def build_loader(cfg, num_replicas, rank):
    ds = NpyImages(cfg.data, cfg.resolution)
    sampler = DistributedSampler(ds, num_replicas=num_replicas, rank=rank, seed=cfg.seed)
    return DataLoader(ds, batch_size=cfg.batch, sampler=sampler, drop_last=True, num_workers=2), sampler
