import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

import horovod.torch as hvd


class TokenWindows(Dataset):
    """Rows of a (n, seq_len + 1) token matrix -> (input, next-token target)."""

    def __init__(self, tokens):
        self.tokens = torch.from_numpy(np.ascontiguousarray(tokens)).long()

    def __len__(self):
        return self.tokens.size(0)

    def __getitem__(self, i):
        row = self.tokens[i]
        return row[:-1], row[1:]


def load_tokens(path, seq_len):
    arr = np.load(path, mmap_mode="r")
    if arr.shape[1] != seq_len + 1:
        raise ValueError(f"{path}: expected rows of {seq_len + 1} tokens, got {arr.shape[1]}")
    return arr


def make_loader(tokens, batch_size, shuffle, seed=0):
    ds = TokenWindows(tokens)
    sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.local_rank(),
                                 shuffle=shuffle, seed=seed)
    return DataLoader(ds, batch_size=batch_size, sampler=sampler, drop_last=shuffle,
                      pin_memory=torch.cuda.is_available())
