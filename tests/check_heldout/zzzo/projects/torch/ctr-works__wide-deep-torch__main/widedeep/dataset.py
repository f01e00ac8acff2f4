import os

import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd

FIELDS = ["hour", "C1", "banner_pos", "site_id", "site_domain", "site_category", "app_id",
          "app_domain", "app_category", "device_id", "device_ip", "device_model", "device_type",
          "device_conn_type", "C14", "C15", "C16", "C17", "C18", "C19", "C20", "C21"]


class AvazuDays(Dataset):
    def __init__(self, root, days, hash_size):
        xs, ys = [], []
        for d in days:
            arr = np.load(os.path.join(root, "day_%02d.npz" % d))
            xs.append(arr["x"] % hash_size)
            ys.append(arr["y"])
        self.x = torch.from_numpy(np.concatenate(xs).astype(np.int64))
        self.y = torch.from_numpy(np.concatenate(ys).astype(np.float32))

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def build_loaders(cfg):
    train_ds = AvazuDays(cfg.data_root, cfg.train_days, cfg.hash_size)
    valid_ds = AvazuDays(cfg.data_root, cfg.valid_days, cfg.hash_size)
    # each worker only sees its part of the rows
    train_sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.local_rank(), shuffle=True)
    valid_sampler = DistributedSampler(valid_ds, num_replicas=hvd.size(), rank=hvd.local_rank(), shuffle=False)
    train_dl = DataLoader(train_ds, batch_size=cfg.batch_size, sampler=train_sampler,
                          num_workers=cfg.workers, pin_memory=True, drop_last=True)
    valid_dl = DataLoader(valid_ds, batch_size=cfg.batch_size, sampler=valid_sampler,
                          num_workers=cfg.workers)
    return train_dl, valid_dl, train_sampler
