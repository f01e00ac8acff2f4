import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd


class BeatDataset(Dataset):
    def __init__(self, x, y, augment=False):
        self.x = torch.as_tensor(np.asarray(x, dtype=np.float32)).unsqueeze(1)
        self.y = torch.as_tensor(np.asarray(y, dtype=np.int64))
        self.augment = augment

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        x = self.x[i]
        if self.augment:
            x = x * (1.0 + 0.05 * torch.randn(1)) + 0.01 * torch.randn_like(x)
        return x, self.y[i]


def make_loader(ds, batch_size, shuffle=False, distributed=False, workers=2):
    """One loader helper for everything (train, val, the test notebook)."""
    sampler = None
    if distributed:
        sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=shuffle)
        shuffle = False
    return DataLoader(ds, batch_size=batch_size, shuffle=shuffle, sampler=sampler,
                      num_workers=workers, drop_last=False)
