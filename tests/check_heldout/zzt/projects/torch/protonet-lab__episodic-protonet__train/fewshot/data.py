import numpy as np
import torch
from torch.utils.data import Dataset, Sampler


class NpzFewShot(Dataset):
    """Images stored as one .npz with x_<split> (N, C, H, W) uint8 and y_<split> class ids."""

    def __init__(self, path, split="train"):
        blob = np.load(path)
        self.x = blob["x_" + split]
        self.labels = blob["y_" + split].astype(np.int64)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        img = torch.from_numpy(self.x[i].astype(np.float32) / 255.0)
        return img, int(self.labels[i])


class EpisodicBatchSampler(Sampler):
    """Yields one N-way episode per batch: all support indices first, then all query indices."""

    def __init__(self, labels, n_way, k_shot, n_query, n_episodes, seed=0):
        self.n_way, self.k_shot, self.n_query = n_way, k_shot, n_query
        self.n_episodes = n_episodes
        self.rng = np.random.RandomState(seed)
        labels = np.asarray(labels)
        self.by_class = {c: np.flatnonzero(labels == c) for c in np.unique(labels)}
        self.classes = np.array(sorted(self.by_class))

    def __len__(self):
        return self.n_episodes

    def __iter__(self):
        for _ in range(self.n_episodes):
            chosen = self.rng.choice(self.classes, self.n_way, replace=False)
            support, query = [], []
            for c in chosen:
                idx = self.rng.choice(self.by_class[c], self.k_shot + self.n_query, replace=False)
                support.extend(idx[: self.k_shot])
                query.extend(idx[self.k_shot:])
            yield [int(i) for i in support + query]
