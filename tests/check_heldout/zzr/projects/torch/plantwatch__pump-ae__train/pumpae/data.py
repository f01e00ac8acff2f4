import glob
import os

import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset


def machine_files(root, split):
    return sorted(glob.glob(os.path.join(root, split, "machine_*.npz")))


def load_windows(files, with_labels=False):
    xs, ys = [], []
    for f in files:
        arr = np.load(f)
        xs.append(arr["x"].astype(np.float32))
        if with_labels:
            ys.append(arr["y"].astype(np.int64))
    x = torch.from_numpy(np.concatenate(xs))
    if with_labels:
        return x, torch.from_numpy(np.concatenate(ys))
    return x


def rank_loader(root, split, rank, size, batch_size, shuffle, with_labels=False, num_workers=0):
    """Each worker owns whole machines: files[rank::size]."""
    files = machine_files(root, split)[rank::size]
    if not files:
        raise RuntimeError(f"rank {rank}: no machine files under {root}/{split}")
    tensors = load_windows(files, with_labels)
    ds = TensorDataset(*tensors) if with_labels else TensorDataset(tensors)
    return DataLoader(ds, batch_size=batch_size, shuffle=shuffle, drop_last=shuffle,
                      num_workers=num_workers)
