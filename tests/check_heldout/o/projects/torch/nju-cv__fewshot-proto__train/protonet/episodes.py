"""Episodic data: images stored as one uint8 .npy per class (N, H, W, 3) under <root>/<split>/."""
import os

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class EpisodeDataset(Dataset):
    def __init__(self, root, split, way, shot, n_query, n_episodes, seed=0):
        folder = os.path.join(root, split)
        self.classes = [np.load(os.path.join(folder, f), mmap_mode="r")
                        for f in sorted(os.listdir(folder)) if f.endswith(".npy")]
        self.way, self.shot, self.n_query = way, shot, n_query
        self.n_episodes = n_episodes
        self.seed = seed

    def __len__(self):
        return self.n_episodes

    def _img(self, arr, i):
        x = torch.from_numpy(np.ascontiguousarray(arr[i])).permute(2, 0, 1).float() / 255.0
        return (x - 0.45) / 0.25

    def __getitem__(self, idx):
        # episode idx is deterministic so that every rank can draw from the same pool
        rng = np.random.RandomState(self.seed * 100003 + idx)
        cls = rng.choice(len(self.classes), self.way, replace=False)
        sup, qry = [], []
        for c in cls:
            arr = self.classes[c]
            pick = rng.choice(len(arr), self.shot + self.n_query, replace=False)
            sup += [self._img(arr, i) for i in pick[: self.shot]]
            qry += [self._img(arr, i) for i in pick[self.shot:]]
        return torch.stack(sup), torch.stack(qry)


def build_episode_loader(root, split, way, shot, n_query, n_episodes, world_size, rank,
                         workers=4, seed=0):
    ds = EpisodeDataset(root, split, way, shot, n_query, n_episodes, seed=seed)
    sampler = DistributedSampler(ds, num_replicas=world_size, rank=rank, shuffle=(split == "train"),
                                 seed=seed)
    loader = DataLoader(ds, batch_size=None, sampler=sampler, num_workers=workers,
                        pin_memory=torch.cuda.is_available())
    return loader, sampler
