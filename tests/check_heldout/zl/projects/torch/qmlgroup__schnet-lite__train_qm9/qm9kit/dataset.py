"""QM9 stored as many HDF5 shards (qm9_000.h5 ... qm9_127.h5), padded to 29 atoms."""
import glob
import os

import h5py
import numpy as np
import torch
from torch.utils.data import Dataset

import horovod.torch as hvd

MAX_ATOMS = 29


def shard_files(files, index, count):
    return files[index::count]


class QM9Shards(Dataset):
    def __init__(self, data_dir, split, target="U0"):
        files = sorted(glob.glob(os.path.join(data_dir, split, "*.h5")))
        if not files:
            raise FileNotFoundError(f"no .h5 shards in {data_dir}/{split}")
        # every worker only opens its own files -> no sampler needed
        self.files = shard_files(files, hvd.local_rank(), hvd.local_size())
        z, pos, y = [], [], []
        for fn in self.files:
            with h5py.File(fn, "r") as h5:
                z.append(h5["Z"][...])
                pos.append(h5["R"][...])
                y.append(h5[target][...])
        self.z = torch.from_numpy(np.concatenate(z).astype(np.int64))
        self.pos = torch.from_numpy(np.concatenate(pos).astype(np.float32))
        self.y = torch.from_numpy(np.concatenate(y).astype(np.float32)).view(-1, 1)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.z[i], self.pos[i], self.y[i]
