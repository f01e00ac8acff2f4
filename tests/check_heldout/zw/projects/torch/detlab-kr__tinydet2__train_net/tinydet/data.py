import itertools
import os

import torch
import torchvision.transforms as T
from torch.utils.data import DataLoader, Sampler
from torchvision.datasets import ImageFolder

from . import comm


class TrainingSampler(Sampler):
    """Infinite stream of indices; every rank shuffles with the same seed and takes a strided slice."""

    def __init__(self, size, shuffle=True, seed=0):
        self._size, self._shuffle, self._seed = size, shuffle, seed
        self._rank, self._world_size = comm.get_rank(), comm.get_world_size()

    def __iter__(self):
        yield from itertools.islice(self._infinite_indices(), self._rank, None, self._world_size)

    def _infinite_indices(self):
        g = torch.Generator()
        g.manual_seed(self._seed)
        while True:
            yield from (torch.randperm(self._size, generator=g) if self._shuffle else torch.arange(self._size)).tolist()


class InferenceSampler(Sampler):
    """Contiguous, non-overlapping chunk of the test set for each rank."""

    def __init__(self, size):
        shard = (size - 1) // comm.get_world_size() + 1
        begin = shard * comm.get_rank()
        self._local_indices = range(begin, min(begin + shard, size))

    def __iter__(self):
        yield from self._local_indices

    def __len__(self):
        return len(self._local_indices)


_normalize = T.Normalize((0.485, 0.456, 0.406), (0.229, 0.224, 0.225))


def build_detection_train_loader(cfg):
    ds = ImageFolder(os.path.join(cfg.DATASETS.ROOT, cfg.DATASETS.TRAIN),
                     T.Compose([T.RandomResizedCrop(224), T.RandomHorizontalFlip(), T.ToTensor(), _normalize]))
    sampler = TrainingSampler(len(ds), seed=cfg.SEED)
    return DataLoader(ds, batch_size=cfg.SOLVER.IMS_PER_GPU, sampler=sampler,
                      num_workers=cfg.DATALOADER.NUM_WORKERS, drop_last=True, pin_memory=True)


def build_detection_test_loader(cfg):
    ds = ImageFolder(os.path.join(cfg.DATASETS.ROOT, cfg.DATASETS.TEST),
                     T.Compose([T.Resize(256), T.CenterCrop(224), T.ToTensor(), _normalize]))
    return DataLoader(ds, batch_size=1 if len(ds) < 64 else 64, sampler=InferenceSampler(len(ds)),
                      num_workers=cfg.DATALOADER.NUM_WORKERS)
