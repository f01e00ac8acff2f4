import csv

import numpy as np
import torch
from torch.utils.data import Dataset


def read_tsv(path):
    with open(path) as f:
        rows = list(csv.reader(f, delimiter="\t"))
    if rows and rows[0][0].lower() == "sequence":
        rows = rows[1:]
    return [r[0] for r in rows], [int(r[1]) for r in rows]


class SequenceDataset(Dataset):
    def __init__(self, path, tokenizer, max_len):
        seqs, labels = read_tsv(path)
        self.ids = torch.tensor([tokenizer.encode(s, max_len) for s in seqs], dtype=torch.long)
        self.labels = torch.tensor(labels, dtype=torch.long)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return self.ids[i], self.labels[i]


def shard_indices(n, rank, world, seed, epoch, shuffle=True):
    """Indices of this worker's share of a dataset of size n for one epoch.

    Every worker draws the same permutation (seed + epoch), keeps every world-th
    index starting at its rank and drops the tail so that all workers run the same
    number of steps.
    """
    if shuffle:
        order = np.random.default_rng(seed + epoch).permutation(n)
    else:
        order = np.arange(n)
    per_rank = n // world
    return order[rank::world][:per_rank].tolist()
