import numpy as np
import pandas as pd
import torch
from torch.utils.data import DataLoader, TensorDataset
import horovod.torch as hvd


def read_and_encode(cfg):
    df = pd.read_csv(cfg.csv)
    for c in cfg.cat_features:
        df[c] = df[c].astype("category").cat.codes + 1      # 0 reserved for NaN/unknown
    num = [c for c in df.columns if c not in cfg.cat_features + [cfg.target]]
    # quick-n-dirty: min/max from the full table (train+valid), same on every process
    lo, hi = df[num].min(), df[num].max()
    df[num] = (df[num] - lo) / (hi - lo + 1e-12)
    return df, num


def get_loaders(cfg):
    df, num = read_and_encode(cfg)
    idx = np.random.RandomState(cfg.seed).permutation(len(df))
    cut = int(0.8 * len(df))
    parts = {}
    for name, rows in (("train", idx[:cut]), ("valid", idx[cut:])):
        d = df.iloc[rows]
        parts[name] = TensorDataset(torch.tensor(d[num].values, dtype=torch.float32),
                                    torch.tensor(d[cfg.cat_features].values, dtype=torch.long),
                                    torch.tensor(d[cfg.target].values, dtype=torch.float32))
    train_sampler = hvd.DistributedSampler(parts["train"], num_replicas=hvd.size(), rank=hvd.rank())
    valid_sampler = hvd.DistributedSampler(parts["valid"], num_replicas=hvd.size(), rank=hvd.rank(),
                                           shuffle=False)
    train = DataLoader(parts["train"], batch_size=cfg.batch_size, sampler=train_sampler, drop_last=True)
    valid = DataLoader(parts["valid"], batch_size=4 * cfg.batch_size, sampler=valid_sampler)
    cards = [int(df[c].max()) + 1 for c in cfg.cat_features]
    return train, valid, len(num), cards, train_sampler
