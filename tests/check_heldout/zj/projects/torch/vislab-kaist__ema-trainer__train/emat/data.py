import os

import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def _load(root, split):
    arr = np.load(os.path.join(root, f"{split}.npz"))
    x = torch.from_numpy(arr["x"]).float().div_(255.0).permute(0, 3, 1, 2).contiguous()
    return TensorDataset(x, torch.from_numpy(arr["y"]).long())


def build_loaders(dcfg, rank, world_size):
    train_set, val_set = _load(dcfg.root, "train"), _load(dcfg.root, "test")
    train_sampler = DistributedSampler(train_set, num_replicas=world_size, rank=rank,
                                       shuffle=True, drop_last=True)
    val_sampler = DistributedSampler(val_set, num_replicas=world_size, rank=rank, shuffle=False)
    kw = dict(num_workers=dcfg.num_workers, pin_memory=torch.cuda.is_available())
    train_loader = DataLoader(train_set, batch_size=dcfg.batch_size, sampler=train_sampler,
                              drop_last=True, **kw)
    val_loader = DataLoader(val_set, batch_size=dcfg.batch_size, sampler=val_sampler, **kw)
    return train_loader, val_loader, train_sampler
