"""Fields are stored as one big (T, C, H, W) float32 .npy, read lazily by time index."""
import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader


def open_fields(path):
    return np.load(path, mmap_mode="r")


def compute_stats(fields, t0, t1, n_samples, seed=0):
    rng = np.random.default_rng(seed)
    idx = np.sort(rng.choice(np.arange(t0, t1), size=min(n_samples, t1 - t0), replace=False))
    x = np.asarray(fields[idx], dtype=np.float64)
    mean = x.mean(axis=(0, 2, 3))
    std = x.std(axis=(0, 2, 3)) + 1e-6
    return {"mean": mean.astype(np.float32), "std": std.astype(np.float32)}


class RolloutDataset(Dataset):
    """Sample i -> (x_t, [x_{t+1}, ..., x_{t+K}]) normalised."""

    def __init__(self, fields, times, rollout, stats):
        self.fields = fields
        self.times = np.asarray(times)
        self.rollout = rollout
        self.mean = stats["mean"][:, None, None]
        self.std = stats["std"][:, None, None]

    def __len__(self):
        return len(self.times)

    def _norm(self, a):
        return (np.asarray(a, dtype=np.float32) - self.mean) / self.std

    def __getitem__(self, i):
        t = int(self.times[i])
        x = self._norm(self.fields[t])
        ys = self._norm(self.fields[t + 1:t + 1 + self.rollout])
        return torch.from_numpy(x), torch.from_numpy(ys)


def partition_times(t0, t1, rollout, rank, world, seed, epoch):
    """Shuffle with a seed shared by all ranks, drop the tail, take every world-th index."""
    times = np.arange(t0, t1 - rollout)
    rng = np.random.default_rng(seed + epoch)
    rng.shuffle(times)
    n = (len(times) // world) * world
    return times[:n][rank::world]


def make_loader(fields, times, rollout, stats, batch_size, workers=2):
    ds = RolloutDataset(fields, times, rollout, stats)
    return DataLoader(ds, batch_size=batch_size, shuffle=False, drop_last=True,
                      num_workers=workers, pin_memory=torch.cuda.is_available())
