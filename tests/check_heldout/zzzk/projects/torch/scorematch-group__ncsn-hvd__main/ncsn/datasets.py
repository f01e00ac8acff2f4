import os

import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd


def _load_split(config, train):
    fn = os.path.join(config.data.root, "train.npz" if train else "test.npz")
    x = np.load(fn)["x"].astype(np.float32) / 255.0
    x = torch.from_numpy(x).permute(0, 3, 1, 2).contiguous()
    y = torch.zeros(len(x), dtype=torch.long)
    return TensorDataset(x, y)


def get_dataloader(config, train=True):
    dataset = _load_split(config, train)
    sampler = DistributedSampler(dataset, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=train)
    loader = DataLoader(
        dataset,
        batch_size=config.training.batch_size,
        shuffle=train,
        num_workers=config.data.num_workers,
        drop_last=train,
    )
    loader.sampler_for_epoch = sampler
    return loader


def data_transform(config, X):
    if config.data.logit_transform:
        X = X * (1 - 2e-6) + 1e-6
        return torch.log(X) - torch.log1p(-X)
    return X * 2.0 - 1.0
