import os

import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

PAD, MASK = 0, 1


def _load(cfg, name):
    return torch.from_numpy(np.load(os.path.join(cfg.data_dir, name)).astype(np.int64))


def make_loader(ds, cfg, rank, world, train):
    sampler = DistributedSampler(ds, num_replicas=world, rank=rank, shuffle=train, seed=cfg.seed)
    return DataLoader(ds, batch_size=cfg.batch_size, sampler=sampler, drop_last=train, num_workers=2), sampler


def pretrain_loader(cfg, rank, world):
    return make_loader(TensorDataset(_load(cfg, "unlabeled_ids.npy")), cfg, rank, world, train=True)


def finetune_loaders(cfg, rank, world):
    tr = TensorDataset(_load(cfg, "train_ids.npy"), _load(cfg, "train_y.npy").float())
    va = TensorDataset(_load(cfg, "valid_ids.npy"), _load(cfg, "valid_y.npy").float())
    return make_loader(tr, cfg, rank, world, True), make_loader(va, cfg, rank, world, False)


def mask_tokens(ids, prob, vocab_size):
    labels = ids.clone()
    m = (torch.rand(ids.shape) < prob) & (ids != PAD)
    labels[~m] = -100
    ids = ids.clone()
    ids[m] = MASK
    return ids, labels
