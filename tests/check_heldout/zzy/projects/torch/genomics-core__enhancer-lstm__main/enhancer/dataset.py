import gzip
import os
import shutil

import numpy as np
import torch
from torch.utils.data import Dataset
import horovod.torch as hvd

from .onehot import onehot_batch, reverse_complement


def stage_to_local(shared_path, scratch="/tmp/enhancer_cache"):
    """Copy the table from the shared file system to node-local scratch, once per node."""
    local = os.path.join(scratch, os.path.basename(shared_path))
    if hvd.local_rank() == 0 and not os.path.exists(local):
        os.makedirs(scratch, exist_ok=True)
        shutil.copy(shared_path, local + ".tmp")
        os.rename(local + ".tmp", local)
    hvd.broadcast_object(0, root_rank=0, name="stage_barrier")
    return local


def read_table(path):
    opener = gzip.open if path.endswith(".gz") else open
    seqs, act, chrom = [], [], []
    with opener(path, "rt") as fh:
        next(fh)
        for line in fh:
            c, s, a = line.rstrip().split("\t")[:3]
            chrom.append(c); seqs.append(s); act.append(float(a))
    return seqs, np.log2(np.asarray(act, dtype=np.float32) + 1.0), np.asarray(chrom)


class EnhancerSet(Dataset):
    def __init__(self, seqs, y, length, rc_augment=False):
        self.x = onehot_batch(seqs, length)
        self.y = torch.from_numpy(y)
        self.rc = rc_augment

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        x = self.x[i]
        if self.rc and np.random.rand() < 0.5:
            x = reverse_complement(x)
        return torch.from_numpy(x), self.y[i]
