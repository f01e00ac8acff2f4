import glob
import os

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, Subset
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd


class SliceDataset(Dataset):
    """2D CT slices saved as <root>/<split>/<case>_<idx>.npz with 'image' (H, W) HU and 'mask' (H, W)."""

    def __init__(self, root, split, size, train):
        self.files = sorted(glob.glob(os.path.join(root, split, "*.npz")))
        self.size, self.train = size, train

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        d = np.load(self.files[i])
        img = np.clip(d["image"].astype(np.float32), -1000, 1000) / 1000.0
        mask = d["mask"].astype(np.int64)
        if self.train:
            if np.random.rand() < 0.5:
                img, mask = img[:, ::-1], mask[:, ::-1]
            k = np.random.randint(4)
            img, mask = np.rot90(img, k), np.rot90(mask, k)
        img = torch.from_numpy(np.ascontiguousarray(img))[None]
        mask = torch.from_numpy(np.ascontiguousarray(mask))
        img = torch.nn.functional.interpolate(img[None], size=(self.size, self.size), mode="bilinear",
                                              align_corners=False)[0]
        mask = torch.nn.functional.interpolate(mask[None, None].float(), size=(self.size, self.size),
                                               mode="nearest")[0, 0].long()
        return img, mask


def build_dataloader(cfg, split, train):
    ds = SliceDataset(cfg.data.root, split, cfg.data.image_size, train)
    if not train:
        # evaluation: every rank scores every size-th slice, no padding
        part = Subset(ds, range(hvd.rank(), len(ds), hvd.size()))
        return DataLoader(part, batch_size=1, num_workers=cfg.data.workers)
    # one shard per GPU
    sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.local_rank(), shuffle=True)
    return DataLoader(ds, batch_size=cfg.train.batch_size, sampler=sampler,
                      num_workers=cfg.data.workers, pin_memory=True, drop_last=True)
