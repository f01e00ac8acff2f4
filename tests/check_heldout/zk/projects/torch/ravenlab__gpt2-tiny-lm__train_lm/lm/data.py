import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader
from torch.utils.data.distributed import DistributedSampler


class TokenBlocks(Dataset):
    """Non-overlapping blocks of a flat uint16 token file; y is x shifted by one."""

    def __init__(self, path, block_size):
        self.tokens = np.memmap(path, dtype=np.uint16, mode="r")
        self.block_size = block_size
        self.n = (len(self.tokens) - 1) // block_size

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        s = i * self.block_size
        chunk = torch.from_numpy(self.tokens[s: s + self.block_size + 1].astype(np.int64))
        return chunk[:-1], chunk[1:]


def make_loader(ds, batch_size, world_size, rank, shuffle):
    sampler = DistributedSampler(ds, num_replicas=world_size, rank=rank, shuffle=shuffle)
    loader = DataLoader(ds, batch_size=batch_size, sampler=sampler, drop_last=shuffle,
                        num_workers=2, pin_memory=True)
    return loader, sampler
