import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

TARGETS = {"homo": 0, "lumo": 1, "gap": 2, "mu": 3}


def load_split(path, target, seed=0):
    d = np.load(path)
    x = torch.tensor(d["fingerprints"], dtype=torch.float32)
    y = torch.tensor(d["targets"][:, TARGETS[target]], dtype=torch.float32).unsqueeze(1)
    perm = torch.randperm(len(x), generator=torch.Generator().manual_seed(seed))
    n_val = len(x) // 10
    val, train = perm[:n_val], perm[n_val:]
    return TensorDataset(x[train], y[train]), TensorDataset(x[val], y[val])


def make_loaders(train_set, val_set, batch_size, size, rank):
    ts = DistributedSampler(train_set, num_replicas=size, rank=rank, shuffle=True, seed=0)
    train_loader = DataLoader(train_set, batch_size=batch_size, sampler=ts)
    val_loader = DataLoader(val_set, batch_size=1024, shuffle=False)
    return train_loader, val_loader, ts
