import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd


def _load(path):
    z = np.load(path)
    def to_ds(x, y):
        x = torch.from_numpy(x.astype(np.float32) / 255.0).unsqueeze(1)
        return TensorDataset(x, torch.from_numpy(y.astype(np.int64)))
    return to_ds(z["x_train"], z["y_train"]), to_ds(z["x_val"], z["y_val"])


def build_loaders(cfg):
    train_ds, val_ds = _load(cfg.data_file)
    train_sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    val_sampler = DistributedSampler(val_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_dl = DataLoader(train_ds, batch_size=cfg.batch_size, sampler=train_sampler, drop_last=True)
    val_dl = DataLoader(val_ds, batch_size=256, sampler=val_sampler)
    return train_dl, val_dl, train_sampler
