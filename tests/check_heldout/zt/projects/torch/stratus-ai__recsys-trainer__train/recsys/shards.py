import glob
import os

import numpy as np
import torch
from torch.utils.data import TensorDataset


def list_shards(root, split, pattern):
    files = sorted(glob.glob(os.path.join(root, split, pattern + "*.npz")))
    if not files:
        raise FileNotFoundError(f"no shards under {root}/{split}")
    return files


def assign_shards(files, rank, world):
    """Round-robin the shard list over workers; every worker gets the same count."""
    usable = len(files) - len(files) % world
    if usable == 0:
        raise ValueError(f"{len(files)} shards cannot feed {world} workers")
    return files[:usable][rank::world]


def load_shards(files):
    feats, items, labels = [], [], []
    for path in files:
        with np.load(path) as blob:
            feats.append(blob["feats"])
            items.append(blob["items"])
            labels.append(blob["labels"])
    return TensorDataset(torch.from_numpy(np.concatenate(feats)).float(),
                         torch.from_numpy(np.concatenate(items)).long(),
                         torch.from_numpy(np.concatenate(labels)).float())
