import glob
import os

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

from .utils.dist import get_rank, get_world_size

# areas 1-4 and 6 train, area 5 is the held-out area (the usual S3DIS protocol)
TRAIN_AREAS = ("Area_1", "Area_2", "Area_3", "Area_4", "Area_6")
HELDOUT_AREAS = ("Area_5",)


class BlockDataset(Dataset):
    def __init__(self, root, areas, num_points, augment=False):
        self.files = sorted(f for a in areas for f in glob.glob(os.path.join(root, a, "*.npz")))
        if not self.files:
            raise FileNotFoundError(f"no blocks under {root} for {areas}")
        self.num_points = num_points
        self.augment = augment

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        blob = np.load(self.files[i])
        pts, lbl = blob["points"].astype(np.float32), blob["labels"].astype(np.int64)
        choice = np.random.choice(len(pts), self.num_points, replace=len(pts) < self.num_points)
        pts, lbl = pts[choice], lbl[choice]
        if self.augment:
            theta = np.random.uniform(0, 2 * np.pi)
            c, s = np.cos(theta), np.sin(theta)
            pts[:, :3] = pts[:, :3] @ np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]], dtype=np.float32)
        return torch.from_numpy(pts).transpose(0, 1), torch.from_numpy(lbl)


def build_loaders(cfg):
    dcfg, tcfg = cfg["data"], cfg["train"]
    train_set = BlockDataset(dcfg["root"], TRAIN_AREAS, dcfg["num_points"], augment=True)
    heldout = BlockDataset(dcfg["root"], HELDOUT_AREAS, dcfg["num_points"])

    train_sampler = DistributedSampler(train_set, num_replicas=get_world_size(), rank=get_rank(),
                                       shuffle=True, seed=cfg.get("seed", 0), drop_last=True)
    heldout_sampler = DistributedSampler(heldout, num_replicas=get_world_size(), rank=get_rank(), shuffle=False)

    kw = dict(num_workers=dcfg.get("num_workers", 2), pin_memory=torch.cuda.is_available())
    train_loader = DataLoader(train_set, batch_size=tcfg["batch_size"], sampler=train_sampler, drop_last=True, **kw)
    heldout_loader = DataLoader(heldout, batch_size=tcfg["batch_size"], sampler=heldout_sampler, **kw)
    return train_loader, heldout_loader, train_sampler
