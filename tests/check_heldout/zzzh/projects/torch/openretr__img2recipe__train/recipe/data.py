import os

import numpy as np
import torch
from torch.utils.data import Dataset


class RecipeImagePairs(Dataset):
    """Recipe titles (captions.tsv) paired with image features; tokens are word hashes."""

    def __init__(self, root, split, max_words=16, vocab=8192):
        d = os.path.join(root, split)
        self.images = torch.from_numpy(np.load(os.path.join(d, "image_feats.npy")).astype(np.float32))
        self.pairs = []
        for line in open(os.path.join(d, "captions.tsv")):
            i, title = line.rstrip("\n").split("\t", 1)
            ids = [hash_word(w, vocab) for w in title.lower().split()][:max_words]
            self.pairs.append((int(i), ids + [0] * (max_words - len(ids))))

    def __len__(self):
        return len(self.pairs)

    def __getitem__(self, k):
        i, ids = self.pairs[k]
        return self.images[i], torch.tensor(ids)


def hash_word(w, vocab):
    h = 0
    for ch in w:
        h = (h * 131 + ord(ch)) % (vocab - 1)
    return h + 1


class ShardSampler(torch.utils.data.Sampler):
    """Same seeded permutation on every worker; worker r takes the r-th contiguous block."""

    def __init__(self, n, rank, world, seed=0):
        self.n, self.rank, self.world, self.seed, self.epoch = n, rank, world, seed, 0
        self.per_rank = n // world

    def set_epoch(self, e):
        self.epoch = e

    def __iter__(self):
        g = torch.Generator().manual_seed(self.seed + self.epoch)
        perm = torch.randperm(self.n, generator=g).tolist()
        return iter(perm[self.rank * self.per_rank:(self.rank + 1) * self.per_rank])

    def __len__(self):
        return self.per_rank
