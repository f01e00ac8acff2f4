import glob
import os

import numpy as np
import torch


class TokenShards:
    """Fixed-length windows over every *.bin shard in a folder, addressed by a flat index."""

    def __init__(self, folder, seq_len):
        self.paths = sorted(glob.glob(os.path.join(folder, "*.bin")))
        if not self.paths:
            raise FileNotFoundError(f"no .bin shards in {folder}")
        self.seq_len = seq_len
        self.maps = [np.memmap(p, dtype=np.uint16, mode="r") for p in self.paths]
        self.counts = [(len(m) - 1) // seq_len for m in self.maps]
        self.offsets = np.cumsum([0] + self.counts)

    def __len__(self):
        return int(self.offsets[-1])

    def __getitem__(self, idx):
        shard = int(np.searchsorted(self.offsets, idx, side="right") - 1)
        start = (idx - self.offsets[shard]) * self.seq_len
        chunk = np.asarray(self.maps[shard][start:start + self.seq_len + 1], dtype=np.int64)
        return torch.from_numpy(chunk[:-1]), torch.from_numpy(chunk[1:])


class StridedIndex:
    """Same permutation on every rank (seed + epoch), each rank keeps every world-th index."""

    def __init__(self, n, rank, world, seed=0, shuffle=True):
        self.n, self.rank, self.world = n, rank, world
        self.seed, self.shuffle, self.epoch = seed, shuffle, 0
        self.per_rank = n // world

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __iter__(self):
        if self.shuffle:
            order = np.random.default_rng(self.seed + self.epoch).permutation(self.n)
        else:
            order = np.arange(self.n)
        order = order[: self.per_rank * self.world]
        return iter(order[self.rank::self.world].tolist())

    def __len__(self):
        return self.per_rank
