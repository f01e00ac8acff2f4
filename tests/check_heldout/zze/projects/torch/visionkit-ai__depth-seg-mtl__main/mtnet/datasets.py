"""NYUv2-style RGB / segmentation / depth triplets stored as .npz shards."""
import glob
import os

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

import horovod.torch as hvd


class SegDepthFolder(Dataset):
    def __init__(self, root, split, hflip=False):
        self.files = sorted(glob.glob(os.path.join(root, split, "*.npz")))
        if not self.files:
            raise FileNotFoundError(f"no .npz files under {root}/{split}")
        self.hflip = hflip

    def __len__(self):
        return len(self.files)

    def __getitem__(self, idx):
        item = np.load(self.files[idx])
        img = torch.from_numpy(item["image"]).float().permute(2, 0, 1) / 255.0
        seg = torch.from_numpy(item["seg"]).long()
        depth = torch.from_numpy(item["depth"]).float().unsqueeze(0)
        if self.hflip and torch.rand(1).item() < 0.5:
            img, seg, depth = img.flip(-1), seg.flip(-1), depth.flip(-1)
        return img, seg, depth


def make_loader(root, split, batch_size, train=True, workers=4):
    ds = SegDepthFolder(root, split, hflip=train)
    # one shard per GPU of the node
    sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.local_rank(), shuffle=train)
    loader = DataLoader(ds, batch_size=batch_size, sampler=sampler, num_workers=workers,
                        drop_last=train, pin_memory=True)
    return loader, sampler
