import os

import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from .env import RANK, WORLD_SIZE


def load_split(root, split):
    feats = np.load(os.path.join(root, f"{split}_logmel.npy")).astype(np.float32)  # (N, T, 40)
    labels = np.load(os.path.join(root, f"{split}_labels.npy")).astype(np.int64)
    return TensorDataset(torch.from_numpy(feats), torch.from_numpy(labels))


def make_loader(root, split, batch_size, train):
    ds = load_split(root, split)
    sampler = DistributedSampler(ds, num_replicas=WORLD_SIZE, rank=RANK, shuffle=train)
    return DataLoader(ds, batch_size=batch_size, sampler=sampler, drop_last=train, num_workers=2)
