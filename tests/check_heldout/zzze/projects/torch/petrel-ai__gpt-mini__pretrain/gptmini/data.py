import glob

import horovod.torch as hvd
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class PackedShards(Dataset):
    """Token shards (1-D .npy of uint16) packed end to end and cut into seq_len+1 windows."""

    def __init__(self, pattern, seq_len, files=None):
        self.files = files if files is not None else sorted(glob.glob(pattern))
        self.seq_len = seq_len
        self.arrays = [np.load(f, mmap_mode="r") for f in self.files]
        self.index = [(i, j) for i, a in enumerate(self.arrays)
                      for j in range(0, len(a) - seq_len - 1, seq_len)]

    def __len__(self):
        return len(self.index)

    def __getitem__(self, k):
        i, j = self.index[k]
        w = torch.from_numpy(self.arrays[i][j:j + self.seq_len + 1].astype(np.int64))
        return w[:-1], w[1:]


def build_loaders(cfg):
    d = cfg["data"]
    files = sorted(glob.glob(d["train_glob"]))
    # one slice of the shard files per worker on the node
    mine = files[hvd.local_rank()::hvd.local_size()]
    train = PackedShards(None, d["seq_len"], files=mine)
    val = PackedShards(d["val_glob"], d["seq_len"])
    train_loader = DataLoader(train, batch_size=d["batch_size"], shuffle=True,
                              drop_last=True, num_workers=2)
    val_loader = DataLoader(val, batch_size=d["batch_size"], shuffle=False)
    return train_loader, val_loader
