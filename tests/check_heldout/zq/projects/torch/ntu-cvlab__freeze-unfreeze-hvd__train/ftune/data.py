import numpy as np
import torch
from torch.utils.data import DataLoader, Subset, TensorDataset

import horovod.torch as hvd


class ShardedArrays:
    """Loads an npz and gives every worker its own equal-sized slice of a shared permutation."""

    def __init__(self, path, seed=0):
        blob = np.load(path)
        self.train = TensorDataset(torch.from_numpy(blob["x_train"]).float().permute(0, 3, 1, 2) / 255.0,
                                   torch.from_numpy(blob["y_train"]).long())
        self.val = TensorDataset(torch.from_numpy(blob["x_val"]).float().permute(0, 3, 1, 2) / 255.0,
                                 torch.from_numpy(blob["y_val"]).long())
        self.num_classes = int(blob["y_train"].max()) + 1
        self.seed = seed

    def _my_slice(self, n, epoch):
        g = torch.Generator().manual_seed(self.seed + epoch)
        perm = torch.randperm(n, generator=g)
        per_rank = n // hvd.size()
        return perm[hvd.rank() * per_rank:(hvd.rank() + 1) * per_rank].tolist()

    def train_loader(self, batch_size, epoch):
        idx = self._my_slice(len(self.train), epoch)
        return DataLoader(Subset(self.train, idx), batch_size=batch_size, shuffle=False, drop_last=True)

    def val_loader(self, batch_size):
        idx = list(range(hvd.rank(), len(self.val), hvd.size()))
        return DataLoader(Subset(self.val, idx), batch_size=batch_size)
