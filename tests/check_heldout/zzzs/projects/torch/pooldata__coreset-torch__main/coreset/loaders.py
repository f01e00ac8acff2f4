import numpy as np
import torch
from torch.utils.data import TensorDataset, DataLoader
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd


def load_arrays(path):
    d = np.load(path)
    return d["x_train"], d["y_train"], d["x_test"], d["y_test"]


def _ds(x, y):
    return TensorDataset(torch.as_tensor(x, dtype=torch.float32), torch.as_tensor(y, dtype=torch.long))


def make_train_loader(x, y, idx, batch_size):
    idx = np.asarray(idx)
    ds = _ds(x[idx], y[idx])
    sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    # TODO pin_memory / workers
    loader = DataLoader(ds, batch_size=batch_size, shuffle=True, drop_last=False)
    return loader, sampler


def make_eval_loader(x, y, batch_size):
    ds = _ds(x, y)
    sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    return DataLoader(ds, batch_size=batch_size, sampler=sampler)


def make_pool_loader(x, idx, batch_size):
    # embeddings are needed for every index on every worker (k-center runs everywhere)
    idx = np.asarray(idx)
    ds = TensorDataset(torch.as_tensor(x[idx], dtype=torch.float32))
    return DataLoader(ds, batch_size=batch_size * 2, shuffle=False)
