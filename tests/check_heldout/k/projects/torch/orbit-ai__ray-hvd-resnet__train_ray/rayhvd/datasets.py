import os

import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

MEAN = np.array([0.4914, 0.4822, 0.4465], dtype=np.float32).reshape(1, 3, 1, 1)
STD = np.array([0.2470, 0.2435, 0.2616], dtype=np.float32).reshape(1, 3, 1, 1)


def _load_split(data_dir, split):
    blob = np.load(os.path.join(data_dir, f"cifar10_{split}.npz"))
    x = (blob["x"].astype(np.float32) / 255.0).transpose(0, 3, 1, 2)
    x = (x - MEAN) / STD
    return TensorDataset(torch.from_numpy(x), torch.from_numpy(blob["y"].astype(np.int64)))


def get_cifar10_loaders(data_dir, batch_size, rank, world_size):
    train_ds = _load_split(data_dir, "train")
    test_ds = _load_split(data_dir, "test")
    train_sampler = DistributedSampler(train_ds, num_replicas=world_size, rank=rank, shuffle=True)
    test_sampler = DistributedSampler(test_ds, num_replicas=world_size, rank=rank, shuffle=False)
    train_loader = DataLoader(train_ds, batch_size=batch_size, sampler=train_sampler, drop_last=True)
    test_loader = DataLoader(test_ds, batch_size=256, sampler=test_sampler)
    return train_loader, test_loader, train_sampler
