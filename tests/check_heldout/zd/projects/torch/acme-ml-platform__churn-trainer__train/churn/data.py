import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from common.dist import per_rank_batch


def _load(uri):
    blob = np.load(uri)
    x = torch.from_numpy(blob["x"].astype(np.float32))
    y = torch.from_numpy(blob["y"].astype(np.float32))
    return x, y


def make_loaders(cfg, world_size, rank):
    x, y = _load(cfg.data_uri)
    n_val = len(x) // 10
    train_ds = TensorDataset(x[n_val:], y[n_val:])
    val_ds = TensorDataset(x[:n_val], y[:n_val])
    batch = per_rank_batch(cfg.global_batch_size)
    train_sampler = DistributedSampler(train_ds, num_replicas=world_size, rank=rank, shuffle=True, seed=cfg.seed)
    val_sampler = DistributedSampler(val_ds, num_replicas=world_size, rank=rank, shuffle=False)
    train_loader = DataLoader(train_ds, batch_size=batch, sampler=train_sampler, num_workers=cfg.num_workers)
    val_loader = DataLoader(val_ds, batch_size=batch, sampler=val_sampler)
    return train_loader, val_loader, train_sampler
