import os
import numpy as np
import torch
from torch.utils.data import TensorDataset, DataLoader
from torch.utils.data.distributed import DistributedSampler


def _load_split(data_dir, split):
    arr = np.load(os.path.join(data_dir, "%s.npz" % split))["x"]
    x = torch.from_numpy(arr.astype(np.float32)).view(-1, 1, 28, 28)
    return TensorDataset(x)


def make_loaders(args, rank, world_size):
    train_ds = _load_split(args.data_dir, "train")
    valid_ds = _load_split(args.data_dir, "valid")
    train_sampler = DistributedSampler(train_ds, num_replicas=world_size, rank=rank, shuffle=True, seed=args.seed)
    # no padding for eval -> ranks may hold 1 sample more or less, we sum counts anyway
    valid_sampler = DistributedSampler(valid_ds, num_replicas=world_size, rank=rank, shuffle=False)
    kw = dict(num_workers=args.num_workers, pin_memory=torch.cuda.is_available())
    train_loader = DataLoader(train_ds, batch_size=args.batch_size, sampler=train_sampler, drop_last=True, **kw)
    valid_loader = DataLoader(valid_ds, batch_size=args.batch_size, sampler=valid_sampler, **kw)
    return train_loader, valid_loader, train_sampler
