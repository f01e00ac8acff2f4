import os

import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from . import dist_utils


def _synthetic(n, cfg, seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.randint(1, cfg.vocab_size, (n, cfg.seq_len), generator=g)
    y = torch.randint(0, cfg.num_classes, (n,), generator=g)
    return TensorDataset(x, y)


def load_split(cfg, split):
    if cfg.data_dir is None:
        return _synthetic(2048 if split == "train" else 512, cfg, seed=0 if split == "train" else 1)
    blob = torch.load(os.path.join(cfg.data_dir, f"{split}.pt"))
    return TensorDataset(blob["input_ids"], blob["labels"])


def build_loaders(cfg):
    train_set, val_set = load_split(cfg, "train"), load_split(cfg, "val")
    world, rank = dist_utils.get_world_size(), dist_utils.get_rank()
    train_sampler = DistributedSampler(train_set, num_replicas=world, rank=rank,
                                       shuffle=True, seed=cfg.seed)
    val_sampler = DistributedSampler(val_set, num_replicas=world, rank=rank, shuffle=False)
    train_loader = DataLoader(train_set, batch_size=cfg.batch_size, sampler=train_sampler,
                              num_workers=2, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=cfg.batch_size * 2, sampler=val_sampler)
    return train_loader, val_loader
