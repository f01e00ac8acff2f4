import os

import torch
from PIL import Image
from torch.utils.data import Dataset


class CUB200(Dataset):
    """Classes 1-100 for training, 101-200 for retrieval testing (zero-shot split)."""

    def __init__(self, root, train, transform):
        self.transform = transform
        with open(os.path.join(root, 'images.txt')) as fh:
            paths = [l.split()[1] for l in fh]
        keep = (lambda c: c <= 100) if train else (lambda c: c > 100)
        self.items = []
        for p in paths:
            c = int(p.split('.')[0])
            if keep(c):
                self.items.append((os.path.join(root, 'images', p), c - 1 if train else c - 101))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        p, y = self.items[i]
        return self.transform(Image.open(p).convert('RGB')), y


def shard_indices(n, rank, world, epoch, seed=0):
    g = torch.Generator()
    g.manual_seed(seed + epoch)
    perm = torch.randperm(n, generator=g).tolist()
    per = n // world
    return perm[rank * per:(rank + 1) * per]
