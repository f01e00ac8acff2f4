import glob
import itertools
import random

import torch
from torch.utils.data import IterableDataset, get_worker_info

from .tario import iter_tar_samples


def expand_urls(pattern):
    urls = sorted(glob.glob(pattern))
    if not urls:
        raise FileNotFoundError(f"no shards match {pattern}")
    return urls


class ShardStream(IterableDataset):
    """Streams samples from tar shards.

    Shards are split first across Horovod ranks, then across the DataLoader
    workers of each rank, so that no two readers open the same shard.
    """

    def __init__(self, urls, rank=0, world_size=1, shuffle=True, seed=0,
                 buffer=256, repeat=False):
        self.urls = list(urls)
        self.rank, self.world_size = rank, world_size
        self.shuffle, self.seed, self.buffer = shuffle, seed, buffer
        self.repeat = repeat
        self.epoch = 0

    def set_epoch(self, epoch):
        self.epoch = epoch

    def _my_shards(self, round_):
        urls = list(self.urls)
        if self.shuffle:
            # same permutation on every rank: seed does not depend on rank
            random.Random(self.seed + 1000 * self.epoch + round_).shuffle(urls)
        urls = urls[self.rank::self.world_size]
        info = get_worker_info()
        if info is not None:
            urls = urls[info.id::info.num_workers]
        return urls

    def _samples(self):
        rounds = itertools.count() if self.repeat else range(1)
        for r in rounds:
            for url in self._my_shards(r):
                yield from iter_tar_samples(url)

    def __iter__(self):
        rng = random.Random(self.seed + self.rank)
        buf = []
        for s in self._samples():
            item = (torch.from_numpy(s["input.npy"]).float(), s["cls"])
            if not self.shuffle:
                yield item
                continue
            buf.append(item)
            if len(buf) >= self.buffer:
                yield buf.pop(rng.randrange(len(buf)))
        rng.shuffle(buf)
        yield from buf
