import csv
import os
import random

import numpy as np
import torch
from torch.utils.data import Dataset


def read_split(root, split, subset, tags_file="top50.txt"):
    """Rows of <root>/<split>/<subset>.tsv: track_id, path, tag|tag|..."""
    with open(os.path.join(root, tags_file)) as f:
        vocab = [t.strip() for t in f if t.strip()]
    index = {t: i for i, t in enumerate(vocab)}
    items = []
    with open(os.path.join(root, split, subset + ".tsv")) as f:
        for row in csv.reader(f, delimiter="\t"):
            target = np.zeros(len(vocab), dtype=np.float32)
            for t in row[2].split("|"):
                if t in index:
                    target[index[t]] = 1.0
            items.append((os.path.join(root, "npy", row[1]), target))
    return items, vocab


def partition(items, rank, world, seed, epoch=0):
    """Same permutation on every worker, then contiguous equal slices (the tail is dropped)."""
    order = list(range(len(items)))
    random.Random(seed + epoch).shuffle(order)
    per_rank = len(order) // world
    mine = order[rank * per_rank:(rank + 1) * per_rank]
    return [items[i] for i in mine]


class ChunkDataset(Dataset):
    """Training: one random chunk per track.  Eval: every non-overlapping chunk of the track."""

    def __init__(self, items, chunk, train=True):
        self.items, self.chunk, self.train = items, chunk, train

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        path, target = self.items[i]
        wav = np.load(path, mmap_mode="r")
        if len(wav) < self.chunk:
            wav = np.pad(wav, (0, self.chunk - len(wav)))
        if self.train:
            start = random.randint(0, len(wav) - self.chunk)
            x = np.array(wav[start:start + self.chunk], dtype=np.float32)
        else:
            n = len(wav) // self.chunk
            x = np.stack([wav[k * self.chunk:(k + 1) * self.chunk] for k in range(n)]).astype(np.float32)
        return torch.from_numpy(x), torch.from_numpy(target)
