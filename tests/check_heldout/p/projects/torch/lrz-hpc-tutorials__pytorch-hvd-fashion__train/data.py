import torch
from torch.utils.data import DataLoader, random_split
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms

import config


def get_datasets(download=False):
    tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.286,), (0.353,))])
    full = datasets.FashionMNIST(config.DATA_DIR, train=True, download=download, transform=tf)
    n_val = int(len(full) * config.VAL_FRACTION)
    # same generator seed on every worker -> identical train/val split everywhere
    train_set, val_set = random_split(full, [len(full) - n_val, n_val],
                                      generator=torch.Generator().manual_seed(config.SPLIT_SEED))
    return train_set, val_set


def get_loaders(train_set, val_set, batch_size, num_replicas, rank):
    train_sampler = DistributedSampler(train_set, num_replicas=num_replicas, rank=rank, shuffle=True)
    val_sampler = DistributedSampler(val_set, num_replicas=num_replicas, rank=rank, shuffle=False)
    train_loader = DataLoader(train_set, batch_size=batch_size, sampler=train_sampler,
                              num_workers=config.NUM_WORKERS, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=batch_size, sampler=val_sampler,
                            num_workers=config.NUM_WORKERS)
    return train_loader, val_loader, train_sampler
