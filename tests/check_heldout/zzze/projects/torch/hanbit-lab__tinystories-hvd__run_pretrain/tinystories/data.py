import json
import os

import numpy as np
import torch
from torch.utils.data import Dataset


class ShardIndexDataset(Dataset):
    """index.json lists shard files and how many seq_len+1 windows each holds."""

    def __init__(self, index_path, split, seq_len):
        with open(index_path) as f:
            index = json.load(f)[split]
        root = os.path.dirname(index_path)
        self.files = [os.path.join(root, e["file"]) for e in index]
        self.cum = np.cumsum([e["windows"] for e in index])
        self.seq_len = seq_len
        self._cache = {}

    def __len__(self):
        return int(self.cum[-1])

    def _shard(self, i):
        if i not in self._cache:
            self._cache[i] = np.memmap(self.files[i], dtype=np.uint16, mode="r")
        return self._cache[i]

    def __getitem__(self, idx):
        s = int(np.searchsorted(self.cum, idx, side="right"))
        local = idx - (self.cum[s - 1] if s else 0)
        arr = self._shard(s)[local * self.seq_len: local * self.seq_len + self.seq_len + 1]
        t = torch.from_numpy(arr.astype(np.int64))
        return t[:-1], t[1:]
