import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset


def load_features(path):
    blob = np.load(path)
    return (blob["train_x"], blob["train_y"]), (blob["test_x"], blob["test_y"])


def strided_shard(x, y, num_shards, index, seed):
    """Every worker draws the same permutation and keeps every num_shards-th item; equal sizes."""
    perm = np.random.RandomState(seed).permutation(len(x))
    keep = len(x) // num_shards * num_shards
    idx = perm[:keep][index::num_shards]
    return x[idx], y[idx]


def loader(x, y, batch_size, shuffle):
    ds = TensorDataset(torch.from_numpy(x).float(), torch.from_numpy(y).long())
    return DataLoader(ds, batch_size=batch_size, shuffle=shuffle, drop_last=shuffle)
