import os

import numpy as np
import torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd


def read_split(path):
    with open(path) as fh:
        return [l.strip() for l in fh if l.strip() and not l.startswith("#")]


class PageLayoutDataset(Dataset):
    """Page scans in <root>/images/<id>.png, label maps in <root>/masks/<id>.png."""

    def __init__(self, root, ids, size):
        self.root, self.ids, self.size = root, ids, size

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, i):
        pid = self.ids[i]
        img = Image.open(os.path.join(self.root, "images", pid + ".png")).convert("RGB")
        mask = Image.open(os.path.join(self.root, "masks", pid + ".png"))
        img = img.resize((self.size, self.size), Image.BILINEAR)
        mask = mask.resize((self.size, self.size), Image.NEAREST)
        x = torch.from_numpy(np.asarray(img, dtype=np.float32) / 255.0).permute(2, 0, 1)
        y = torch.from_numpy(np.asarray(mask, dtype=np.int64))
        return x, y


def make_loader(cfg, split, train):
    d = cfg["data"]
    ds = PageLayoutDataset(d["root"], read_split(d[split]), d["size"])
    sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.local_rank(), shuffle=train)
    loader = DataLoader(ds, batch_size=cfg["optim"]["batch_size"], sampler=sampler,
                        num_workers=d["workers"], drop_last=train, pin_memory=True)
    return loader, sampler
