import numpy as np
import pandas as pd
import torch
import horovod.torch as hvd
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

DENSE_COLS = [f"I{i}" for i in range(1, 14)]
SPARSE_COLS = [f"C{i}" for i in range(1, 27)]


class CriteoFrame(Dataset):
    """Criteo rows already hashed to contiguous ids (see scripts/preprocess.py)."""

    def __init__(self, path):
        df = pd.read_parquet(path)
        self.dense = np.log1p(df[DENSE_COLS].clip(lower=0).to_numpy(np.float32))
        self.sparse = df[SPARSE_COLS].to_numpy(np.int64)
        self.label = df["label"].to_numpy(np.float32)
        self.cardinalities = [int(df[c].max()) + 1 for c in SPARSE_COLS]

    def __len__(self):
        return len(self.label)

    def __getitem__(self, i):
        return self.dense[i], self.sparse[i], self.label[i]


def make_loader(path, batch_size, train=True, workers=2):
    ds = CriteoFrame(path)
    sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=train)
    loader = DataLoader(ds, batch_size=batch_size, sampler=sampler,
                        num_workers=workers, pin_memory=True, drop_last=train)
    return loader, sampler, ds.cardinalities
