import os

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, Sampler

import horovod.torch as hvd


class FeatureSet(Dataset):
    """Log-mel features [N, T, F], keyword ids [N], phone targets [N, S] padded with 0, lengths [N]."""

    def __init__(self, root):
        self.feats = np.load(os.path.join(root, "feats.npy"), mmap_mode="r")
        self.keyword = np.load(os.path.join(root, "keyword.npy"))
        self.phones = np.load(os.path.join(root, "phones.npy"))
        self.phone_len = np.load(os.path.join(root, "phone_len.npy"))

    def __len__(self):
        return len(self.keyword)

    def __getitem__(self, i):
        return (torch.tensor(np.array(self.feats[i]), dtype=torch.float32), int(self.keyword[i]),
                torch.from_numpy(self.phones[i]).long(), int(self.phone_len[i]))


class EpochPartitionSampler(Sampler):
    """Same seeded permutation on every worker; worker r takes the r-th equal slice (remainder dropped)."""

    def __init__(self, n, seed=0):
        self.n, self.seed, self.epoch = n, seed, 0
        self.per_rank = n // hvd.size()

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __iter__(self):
        perm = np.random.default_rng(self.seed + self.epoch).permutation(self.n)
        lo = hvd.rank() * self.per_rank
        return iter(perm[lo:lo + self.per_rank].tolist())

    def __len__(self):
        return self.per_rank


def domain_loaders(cfg):
    bs, seed = cfg.getint("data", "batch_size"), cfg.getint("data", "seed")
    loaders = {}
    for name in ("clean", "noisy"):
        ds = FeatureSet(cfg.get("data", f"{name}_dir"))
        sampler = EpochPartitionSampler(len(ds), seed=seed)
        loaders[name] = DataLoader(ds, batch_size=bs, sampler=sampler, drop_last=True, num_workers=2)
    return loaders


def eval_loader(cfg):
    ds = FeatureSet(cfg.get("data", "eval_dir"))
    sampler = EpochPartitionSampler(len(ds), seed=0)
    return DataLoader(ds, batch_size=256, sampler=sampler)
