import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

import horovod.torch as hvd

_MEAN = torch.tensor([0.4914, 0.4822, 0.4465]).view(1, 3, 1, 1)
_STD = torch.tensor([0.2470, 0.2435, 0.2616]).view(1, 3, 1, 1)


def _to_tensor(x, y):
    x = torch.from_numpy(x).float().div_(255.0).permute(0, 3, 1, 2)
    return TensorDataset((x - _MEAN) / _STD, torch.from_numpy(y).long())


def build_loaders(path, batch_size, workers=2):
    blob = np.load(path)
    train_set = _to_tensor(blob["x_train"], blob["y_train"])
    val_set = _to_tensor(blob["x_val"], blob["y_val"])

    train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank(),
                                       shuffle=True, seed=17)
    val_sampler = DistributedSampler(val_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)

    train_loader = DataLoader(train_set, batch_size=batch_size, sampler=train_sampler,
                              num_workers=workers, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=2 * batch_size, sampler=val_sampler,
                            num_workers=workers)
    return train_loader, val_loader, train_sampler
