import math

import numpy as np
import torch
from torch.utils.data import TensorDataset


def make_datasets(dcfg):
    # synthetic fallback when no root is given (CI / smoke tests)
    if dcfg.root:
        x_tr = torch.from_numpy(np.load(dcfg.root + "/x_train.npy")).float()
        y_tr = torch.from_numpy(np.load(dcfg.root + "/y_train.npy")).long()
        x_va = torch.from_numpy(np.load(dcfg.root + "/x_val.npy")).float()
        y_va = torch.from_numpy(np.load(dcfg.root + "/y_val.npy")).long()
    else:
        g = torch.Generator().manual_seed(0)
        x_tr = torch.randn(dcfg.n_train, dcfg.n_features, generator=g)
        y_tr = torch.randint(0, dcfg.n_classes, (dcfg.n_train,), generator=g)
        x_va = torch.randn(dcfg.n_val, dcfg.n_features, generator=g)
        y_va = torch.randint(0, dcfg.n_classes, (dcfg.n_val,), generator=g)
    return TensorDataset(x_tr, y_tr), TensorDataset(x_va, y_va)


class PartitionedLoader(object):
    """Yields batches of this worker's slice of the dataset.

    All workers shuffle with the same seed, then worker r keeps positions r, r+world, ...
    The index list is padded by wrapping around so every worker has the same number of batches.
    """

    def __init__(self, dataset, batch_size, rank, world, seed=0, shuffle=True):
        self.dataset = dataset
        self.batch_size = batch_size
        self.rank = rank
        self.world = world
        self.seed = seed
        self.shuffle = shuffle
        self.epoch = 0
        self.per_worker = int(math.ceil(len(dataset) / float(world)))

    def set_epoch(self, epoch):
        self.epoch = epoch

    def _indices(self):
        n = len(self.dataset)
        if self.shuffle:
            g = torch.Generator().manual_seed(self.seed + self.epoch)
            idx = torch.randperm(n, generator=g).tolist()
        else:
            idx = list(range(n))
        idx += idx[: self.per_worker * self.world - n]
        return idx[self.rank::self.world]

    def __len__(self):
        return int(math.ceil(self.per_worker / float(self.batch_size)))

    def __iter__(self):
        idx = self._indices()
        for i in range(0, len(idx), self.batch_size):
            chunk = idx[i:i + self.batch_size]
            xs, ys = zip(*[self.dataset[j] for j in chunk])
            yield torch.stack(xs), torch.stack(ys)
