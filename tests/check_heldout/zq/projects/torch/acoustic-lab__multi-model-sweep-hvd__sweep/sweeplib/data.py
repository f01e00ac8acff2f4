import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

import horovod.torch as hvd


class SpectrogramData:
    def __init__(self, path, batch_size):
        z = np.load(path)
        mean, std = z["x_train"].mean(), z["x_train"].std() + 1e-6
        self.train = TensorDataset(torch.from_numpy((z["x_train"] - mean) / std).float(),
                                   torch.from_numpy(z["y_train"]).long())
        self.valid = TensorDataset(torch.from_numpy((z["x_valid"] - mean) / std).float(),
                                   torch.from_numpy(z["y_valid"]).long())
        self.n_mels = z["x_train"].shape[1]
        self.n_classes = int(z["y_train"].max()) + 1
        self.batch_size = batch_size

    def loaders(self):
        tr_sampler = DistributedSampler(self.train, num_replicas=hvd.size(), rank=hvd.rank(), seed=3)
        va_sampler = DistributedSampler(self.valid, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
        return (DataLoader(self.train, self.batch_size, sampler=tr_sampler, drop_last=True),
                DataLoader(self.valid, 4 * self.batch_size, sampler=va_sampler),
                tr_sampler)
