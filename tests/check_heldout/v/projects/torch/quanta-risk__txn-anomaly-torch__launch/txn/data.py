import os

import horovod.torch as hvd
import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def _load(path):
    z = np.load(path)
    return TensorDataset(torch.from_numpy(z["features"]).float(), torch.from_numpy(z["is_fraud"]).float())


def get_loaders(data_dir, batch_size):
    train = _load(os.path.join(data_dir, "train.npz"))
    val = _load(os.path.join(data_dir, "val.npz"))
    # one replica per GPU slot
    train_sampler = DistributedSampler(train, num_replicas=hvd.size(), rank=hvd.local_rank(), shuffle=True)
    val_sampler = DistributedSampler(val, num_replicas=hvd.size(), rank=hvd.local_rank(), shuffle=False)
    return (DataLoader(train, batch_size=batch_size, sampler=train_sampler, drop_last=True),
            DataLoader(val, batch_size=batch_size, sampler=val_sampler),
            train_sampler)
