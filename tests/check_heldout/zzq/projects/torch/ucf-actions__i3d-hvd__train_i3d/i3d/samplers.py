import math
import torch
from torch.utils.data import Sampler
import horovod.torch as hvd


class ClipSampler(Sampler):
    """Shuffles clip indices with a shared seed and hands each worker its share."""

    def __init__(self, dataset, shuffle=True, seed=0):
        self.dataset = dataset
        self.shuffle = shuffle
        self.seed = seed
        self.epoch = 0
        self.num_shards = hvd.size()
        self.shard_id = hvd.local_rank()
        self.per_shard = math.ceil(len(dataset) / self.num_shards)

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __iter__(self):
        if self.shuffle:
            g = torch.Generator().manual_seed(self.seed + self.epoch)
            order = torch.randperm(len(self.dataset), generator=g).tolist()
        else:
            order = list(range(len(self.dataset)))
        order += order[: self.per_shard * self.num_shards - len(order)]
        return iter(order[self.shard_id::self.num_shards])

    def __len__(self):
        return self.per_shard
