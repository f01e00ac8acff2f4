import numpy as np
import torch
import horovod.torch as hvd
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

MEAN = np.array([0.507, 0.487, 0.441], dtype=np.float32).reshape(1, 3, 1, 1)
STD = np.array([0.267, 0.256, 0.276], dtype=np.float32).reshape(1, 3, 1, 1)


def _tensor_ds(x, y):
    x = (x.astype(np.float32) / 255.0 - MEAN) / STD
    return TensorDataset(torch.from_numpy(x), torch.from_numpy(y.astype(np.int64)))


def task_loaders(data, classes, batch_size, rank=hvd.rank(), world=hvd.size(), workers=2):
    """Train/test loaders restricted to `classes`, sharded over the Horovod workers."""
    (xtr, ytr), (xte, yte) = data
    tr = np.isin(ytr, classes)
    te = np.isin(yte, classes)
    train_ds, test_ds = _tensor_ds(xtr[tr], ytr[tr]), _tensor_ds(xte[te], yte[te])
    train_sampler = DistributedSampler(train_ds, num_replicas=world, rank=rank, shuffle=True)
    test_sampler = DistributedSampler(test_ds, num_replicas=world, rank=rank, shuffle=False)
    return (DataLoader(train_ds, batch_size, sampler=train_sampler, num_workers=workers, drop_last=True),
            DataLoader(test_ds, 256, sampler=test_sampler, num_workers=workers))
