import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader
from torch.utils.data.distributed import DistributedSampler


class ETTLike(Dataset):
    """ETT-style 12/4/4 month split; scaler fitted on the training months."""

    def __init__(self, data, flag, seq_len, pred_len, stats):
        n = len(data)
        borders = {"train": (0, int(n * 0.6)), "val": (int(n * 0.6) - seq_len, int(n * 0.8)),
                   "test": (int(n * 0.8) - seq_len, n)}
        lo, hi = borders[flag]
        self.x = ((data[lo:hi] - stats[0]) / stats[1]).astype(np.float32)
        self.seq_len, self.pred_len = seq_len, pred_len

    def __len__(self):
        return len(self.x) - self.seq_len - self.pred_len + 1

    def __getitem__(self, i):
        s, e = i + self.seq_len, i + self.seq_len + self.pred_len
        return torch.from_numpy(self.x[i:s]), torch.from_numpy(self.x[s:e])


def read_raw(path, n=17420, c=7):
    if path:
        return np.genfromtxt(path, delimiter=",", skip_header=1, usecols=range(1, c + 1)).astype(np.float32)
    t = np.arange(n)[:, None]
    rng = np.random.default_rng(5)
    return (np.sin(2 * np.pi * t / 24 + rng.uniform(0, 6, c)) * 5 + 20 + rng.normal(0, 1, (n, c))).astype(np.float32)


def data_provider(args, flag, rank, world):
    raw = read_raw(args.data_path, c=args.enc_in)
    train_part = raw[: int(len(raw) * 0.6)]
    stats = (train_part.mean(0), train_part.std(0) + 1e-6)
    ds = ETTLike(raw, flag, args.seq_len, args.pred_len, stats)
    sampler = DistributedSampler(ds, num_replicas=world, rank=rank, shuffle=(flag == "train"))
    loader = DataLoader(ds, batch_size=args.batch_size, sampler=sampler, drop_last=(flag == "train"),
                        num_workers=args.num_workers)
    return ds, loader, sampler
