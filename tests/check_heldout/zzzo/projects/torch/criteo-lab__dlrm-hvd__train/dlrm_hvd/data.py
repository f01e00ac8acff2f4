import glob
import os

import numpy as np
import torch

N_DENSE = 13
N_CAT = 26


def day_files(data_dir, days):
    files = []
    for d in days:
        files += sorted(glob.glob(os.path.join(data_dir, "day_%d" % d, "part-*.parquet")))
    return files


def _read_part(path, num_buckets):
    import pandas as pd
    df = pd.read_parquet(path)
    dense = np.log1p(df[["I%d" % i for i in range(1, N_DENSE + 1)]].fillna(0).clip(lower=0).values)
    cats = df[["C%d" % i for i in range(1, N_CAT + 1)]].fillna("").values
    cats = np.vectorize(lambda s: hash(s) % num_buckets)(cats)
    return dense.astype(np.float32), cats.astype(np.int64), df["label"].values.astype(np.float32)


def _synthetic_part(seed, num_buckets, rows=4096):
    r = np.random.RandomState(seed)
    return (r.rand(rows, N_DENSE).astype(np.float32),
            r.randint(0, num_buckets, size=(rows, N_CAT)),
            (r.rand(rows) < 0.25).astype(np.float32))


def count_rows(files, synthetic=False, batch_size=0):
    if synthetic:
        return len(files) * batch_size * 4
    import pyarrow.parquet as pq
    return sum(pq.ParquetFile(f).metadata.num_rows for f in files)


class PartitionedDays(torch.utils.data.IterableDataset):
    """Each worker gets the parquet parts whose index i % world == rank."""

    def __init__(self, files, rank, world, batch_size, num_buckets, synthetic=False, epoch=0):
        self.files = files
        self.rank = rank
        self.world = world
        self.batch_size = batch_size
        self.num_buckets = num_buckets
        self.synthetic = synthetic
        self.epoch = epoch

    def my_files(self):
        return [f for i, f in enumerate(self.files) if i % self.world == self.rank]

    def __iter__(self):
        for fi, f in enumerate(self.my_files()):
            if self.synthetic:
                dense, cats, y = _synthetic_part(hash((f, self.epoch)) % 100003, self.num_buckets, rows=self.batch_size * 4)
            else:
                dense, cats, y = _read_part(f, self.num_buckets)
            for s in range(0, len(y) - self.batch_size + 1, self.batch_size):
                yield (torch.from_numpy(dense[s:s + self.batch_size]),
                       torch.from_numpy(cats[s:s + self.batch_size]),
                       torch.from_numpy(y[s:s + self.batch_size]))


def make_loader(files, rank, world, args, epoch=0):
    ds = PartitionedDays(files, rank, world, args.batch_size, args.num_hash_buckets,
                         synthetic=args.synthetic, epoch=epoch)
    return torch.utils.data.DataLoader(ds, batch_size=None, num_workers=0)
