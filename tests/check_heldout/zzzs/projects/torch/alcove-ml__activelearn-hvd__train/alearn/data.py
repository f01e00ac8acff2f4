import numpy as np
import torch
from torch.utils.data import TensorDataset, DataLoader, Subset

from . import dist


def load_pool(path):
    d = np.load(path)
    train = TensorDataset(torch.from_numpy(d["x_train"]).float(), torch.from_numpy(d["y_train"]).long())
    test = TensorDataset(torch.from_numpy(d["x_test"]).float(), torch.from_numpy(d["y_test"]).long())
    return train, test


def labeled_loader(ds, labeled_idx, batch_size, epoch, seed=0):
    mine = dist.shard_indices(labeled_idx, shuffle_seed=seed * 1000 + epoch)
    return DataLoader(Subset(ds, mine), batch_size=batch_size, shuffle=False)


def pool_loader(ds, pool_idx, batch_size):
    # every worker scores its slice of the pool, the scores get allgathered afterwards
    mine = dist.shard_indices(pool_idx)
    rest = len(pool_idx) - len(pool_idx) % dist.hvd.size()
    if dist.is_master():
        mine = mine + list(pool_idx[rest:])
    return mine, DataLoader(Subset(ds, mine), batch_size=batch_size * 4, shuffle=False)


def test_loader(ds, batch_size):
    idx = list(range(len(ds)))[dist.hvd.rank()::dist.hvd.size()]
    return DataLoader(Subset(ds, idx), batch_size=batch_size * 4)
