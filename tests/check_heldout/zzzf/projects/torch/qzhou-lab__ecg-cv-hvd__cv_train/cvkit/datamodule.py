import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset


class FoldDataModule:
    """Assigns folds once and hands each rank an equal slice of a fold's train/val split."""

    def __init__(self, path, n_folds, seed, rank, world):
        blob = np.load(path)
        self.x = torch.from_numpy(blob["x"].astype(np.float32))
        self.y = torch.from_numpy(blob["y"].astype(np.int64))
        rng = np.random.default_rng(seed)
        self.fold_of = rng.permutation(len(self.y)) % n_folds
        self.seed, self.rank, self.world = seed, rank, world

    def _rank_slice(self, idx, epoch_seed):
        idx = np.random.default_rng(epoch_seed).permutation(idx)
        per_rank = len(idx) // self.world
        return idx[self.rank * per_rank:(self.rank + 1) * per_rank]

    def train_loader(self, fold, epoch, batch_size):
        idx = self._rank_slice(np.where(self.fold_of != fold)[0], self.seed * 1000 + epoch)
        ds = TensorDataset(self.x[idx], self.y[idx])
        return DataLoader(ds, batch_size=batch_size, shuffle=False, drop_last=True)

    def val_indices(self, fold):
        return self._rank_slice(np.where(self.fold_of == fold)[0], self.seed)

    def val_loader(self, fold, batch_size):
        idx = self.val_indices(fold)
        ds = TensorDataset(self.x[idx], self.y[idx], torch.from_numpy(idx))
        return DataLoader(ds, batch_size=batch_size, shuffle=False)
