import os

import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def load_pairs(root, split, tokenizer):
    feats = np.load(os.path.join(root, split, "image_feats.npy")).astype("float32")
    ids, rows = [], []
    with open(os.path.join(root, split, "captions.tsv"), encoding="utf-8") as fh:
        for line in fh:
            i, title = line.rstrip("\n").split("\t", 1)
            ids.append(int(i))
            rows.append(tokenizer(title))
    return TensorDataset(torch.from_numpy(feats[ids]), torch.tensor(rows), torch.tensor(ids))


def make_loader(dataset, batch_size, rank, world, train=True):
    sampler = DistributedSampler(dataset, num_replicas=world, rank=rank, shuffle=train,
                                 drop_last=train)
    return DataLoader(dataset, batch_size=batch_size, sampler=sampler, drop_last=train)
