import os

import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def _load(data_dir, split, n, num_classes):
    if data_dir is not None:
        x, y = torch.load(os.path.join(data_dir, split + ".pt"))
        return TensorDataset(x, y)
    g = torch.Generator().manual_seed(0 if split == "train" else 1)
    x = torch.randn(n, 3, 32, 32, generator=g)
    y = torch.randint(0, num_classes, (n,), generator=g)
    return TensorDataset(x, y)


def make_loaders(args, rank, world_size):
    train_ds = _load(args.data_dir, "train", 512, args.num_classes)
    val_ds = _load(args.data_dir, "val", 128, args.num_classes)
    train_sampler = DistributedSampler(train_ds, num_replicas=world_size, rank=rank, shuffle=True, seed=args.seed)
    val_sampler = DistributedSampler(val_ds, num_replicas=world_size, rank=rank, shuffle=False)
    train_loader = DataLoader(train_ds, batch_size=args.batch_size, sampler=train_sampler, num_workers=0)
    val_loader = DataLoader(val_ds, batch_size=args.batch_size, sampler=val_sampler)
    return train_loader, val_loader, train_sampler
