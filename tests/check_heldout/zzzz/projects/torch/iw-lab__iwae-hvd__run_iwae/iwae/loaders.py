import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def mnist_loaders(path, batch_size, rank, world, seed=0):
    d = np.load(path)
    tr = TensorDataset(torch.from_numpy(d["x_train"].astype(np.float32).reshape(-1, 784)))
    te = TensorDataset(torch.from_numpy(d["x_test"].astype(np.float32).reshape(-1, 784)))
    tr_s = DistributedSampler(tr, num_replicas=world, rank=rank, shuffle=True, seed=seed, drop_last=True)
    te_s = DistributedSampler(te, num_replicas=world, rank=rank, shuffle=False, drop_last=True)
    return (DataLoader(tr, batch_size=batch_size, sampler=tr_s),
            DataLoader(te, batch_size=100, sampler=te_s), tr_s)
