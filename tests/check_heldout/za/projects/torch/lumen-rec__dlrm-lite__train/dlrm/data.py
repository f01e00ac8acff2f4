import horovod.torch as hvd
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class ClickLog(Dataset):
    """Preprocessed click log: dense (N, 13) float32, sparse (N, 26) int64 hashed ids, label (N,)."""

    def __init__(self, path, indices=None):
        z = np.load(path)
        self.dense, self.sparse, self.label = z["dense"], z["sparse"], z["label"]
        self.indices = np.arange(len(self.label)) if indices is None else indices

    def __len__(self):
        return len(self.indices)

    def __getitem__(self, i):
        k = self.indices[i]
        return (torch.from_numpy(np.log1p(np.maximum(self.dense[k], 0))), torch.from_numpy(self.sparse[k]),
                torch.tensor(self.label[k], dtype=torch.float32))


def worker_indices(n, seed):
    perm = np.random.RandomState(seed).permutation(n)
    # one slice per GPU on the box
    return perm[hvd.local_rank()::hvd.local_size()]


def make_loader(path, batch_size, seed, train=True, workers=4):
    n = len(np.load(path)["label"])
    ds = ClickLog(path, worker_indices(n, seed))
    return DataLoader(ds, batch_size=batch_size, shuffle=train, drop_last=train, num_workers=workers,
                      pin_memory=True)
