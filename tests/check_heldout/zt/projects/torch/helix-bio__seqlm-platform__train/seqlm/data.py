import numpy as np
import torch
import horovod.torch as hvd
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


def read_manifest(path):
    with open(path) as f:
        return [line.strip() for line in f if line.strip() and not line.startswith("#")]


class TokenShards(Dataset):
    def __init__(self, shard_paths, seq_len):
        tokens = np.concatenate([np.load(p) for p in shard_paths]).astype(np.int64)
        n = (len(tokens) - 1) // seq_len
        self.x = torch.from_numpy(tokens[: n * seq_len].reshape(n, seq_len))
        self.y = torch.from_numpy(tokens[1 : n * seq_len + 1].reshape(n, seq_len))

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def make_loader(shards, cfg, train=True):
    ds = TokenShards(shards, cfg["data"]["seq_len"])
    sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.local_rank(), shuffle=train)
    loader = DataLoader(ds, batch_size=cfg["data"]["batch_size"], sampler=sampler,
                        num_workers=cfg["data"]["workers"], drop_last=train)
    return loader, sampler
