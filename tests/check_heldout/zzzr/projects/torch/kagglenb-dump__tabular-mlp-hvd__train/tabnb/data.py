import numpy as np
import torch
from torch.utils.data import TensorDataset, DataLoader
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd


def load_table(csv, target, synthetic=0, n_feat=32):
    if synthetic:
        rng = np.random.RandomState(0)
        X = rng.randn(synthetic, n_feat).astype("float32")
        y = (X[:, 0] + 0.1 * rng.randn(synthetic) > 0).astype("int64")
        return X, y
    import pandas as pd
    df = pd.read_csv(csv)
    y = df.pop(target).values.astype("int64")
    X = df.select_dtypes("number").fillna(0).values.astype("float32")
    X = (X - X.mean(0)) / (X.std(0) + 1e-6)
    return X, y


def split(X, y, val_frac, seed=42):
    idx = np.random.RandomState(seed).permutation(len(X))
    n_val = int(len(X) * val_frac)
    va, tr = idx[:n_val], idx[n_val:]
    return (X[tr], y[tr]), (X[va], y[va])


def make_loader(X, y, batch_size, train):
    ds = TensorDataset(torch.from_numpy(X), torch.from_numpy(y))
    sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=train)
    if train:
        # same as the notebook: let the loader shuffle
        loader = DataLoader(ds, batch_size=batch_size, shuffle=True, drop_last=True)
    else:
        loader = DataLoader(ds, batch_size=batch_size, sampler=sampler)
    return loader, sampler
