import numpy as np
import pandas as pd
import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


class TabularDataModule:
    """Standardised numeric features from a parquet file, split by a fixed row hash.

    ``rank``/``num_replicas`` are given by the caller so this class never imports Horovod.
    """

    def __init__(self, path, target, batch_size, rank, num_replicas, dev_fraction=0.1, seed=0):
        self.path, self.target = path, target
        self.batch_size = batch_size
        self.rank, self.num_replicas = rank, num_replicas
        self.dev_fraction, self.seed = dev_fraction, seed

    def setup(self):
        df = pd.read_parquet(self.path)
        y = df.pop(self.target).to_numpy(np.float32)
        x = df.select_dtypes("number").to_numpy(np.float32)
        is_dev = (pd.util.hash_pandas_object(df, index=False).to_numpy() % 1000) < 1000 * self.dev_fraction
        mean, std = x[~is_dev].mean(0), x[~is_dev].std(0) + 1e-6
        x = (x - mean) / std
        self.num_features = x.shape[1]
        self.train_set = TensorDataset(torch.from_numpy(x[~is_dev]), torch.from_numpy(y[~is_dev]))
        self.dev_split = TensorDataset(torch.from_numpy(x[is_dev]), torch.from_numpy(y[is_dev]))
        self.train_sampler = DistributedSampler(self.train_set, num_replicas=self.num_replicas, rank=self.rank,
                                                shuffle=True, seed=self.seed)
        self.dev_sampler = DistributedSampler(self.dev_split, num_replicas=self.num_replicas, rank=self.rank,
                                              shuffle=False)
        return self

    def train_loader(self, epoch):
        self.train_sampler.set_epoch(epoch)
        return DataLoader(self.train_set, batch_size=self.batch_size, sampler=self.train_sampler)

    def dev_loader(self):
        return DataLoader(self.dev_split, batch_size=4 * self.batch_size, sampler=self.dev_sampler)
