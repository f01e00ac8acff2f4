import glob
import os

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd


class ShardedNpy(Dataset):
    """images stored as a list of .npy chunks, each N x H x W x 3 uint8"""

    def __init__(self, root, split):
        files = sorted(glob.glob(os.path.join(root, split, "*.npy")))
        self.arr = np.concatenate([np.load(f) for f in files], 0)

    def __len__(self):
        return len(self.arr)

    def __getitem__(self, i):
        return torch.from_numpy(self.arr[i]).permute(2, 0, 1).float() / 127.5 - 1.0


def make_loaders(opt):
    train = ShardedNpy(opt.dataroot, "train")
    val = ShardedNpy(opt.dataroot, "val")
    train_sampler = DistributedSampler(train, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    val_sampler = DistributedSampler(val, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train, batch_size=opt.batch_size, sampler=train_sampler,
                              num_workers=opt.n_threads, drop_last=True)
    val_loader = DataLoader(val, batch_size=opt.batch_size, sampler=val_sampler, num_workers=opt.n_threads)
    return train_loader, train_sampler, val_loader
