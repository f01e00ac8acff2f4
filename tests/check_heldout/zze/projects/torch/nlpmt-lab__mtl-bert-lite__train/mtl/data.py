import os

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

import horovod.torch as hvd


class JointNLUDataset(Dataset):
    """tokens.npy [N, L], intents.npy [N], slots.npy [N, L] (-100 on padding)."""

    def __init__(self, root, split):
        d = os.path.join(root, split)
        self.tokens = np.load(os.path.join(d, "tokens.npy"))
        self.intents = np.load(os.path.join(d, "intents.npy"))
        self.slots = np.load(os.path.join(d, "slots.npy"))
        assert len(self.tokens) == len(self.intents) == len(self.slots)

    def __len__(self):
        return len(self.tokens)

    def __getitem__(self, i):
        return (torch.from_numpy(self.tokens[i]).long(),
                int(self.intents[i]),
                torch.from_numpy(self.slots[i]).long())


def build_loaders(root, cfg):
    train_set = JointNLUDataset(root, "train")
    val_set = JointNLUDataset(root, "dev")
    train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank(),
                                       shuffle=True, seed=cfg.seed)
    val_sampler = DistributedSampler(val_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    kw = dict(num_workers=cfg.num_workers, pin_memory=torch.cuda.is_available())
    train_loader = DataLoader(train_set, batch_size=cfg.batch_size, sampler=train_sampler,
                              drop_last=True, **kw)
    val_loader = DataLoader(val_set, batch_size=cfg.batch_size * 2, sampler=val_sampler, **kw)
    return train_loader, val_loader, train_sampler
