"""descriptors.npz: X (N, F) float32 Magpie + structure descriptors, y (N,) formation energy in eV/atom."""
import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


class DescriptorData:
    def __init__(self, path, val_fraction=0.05, seed=0):
        z = np.load(path)
        x, y = z["X"].astype(np.float32), z["y"].astype(np.float32)
        mu, sd = x.mean(0), x.std(0) + 1e-6
        x = (x - mu) / sd
        perm = np.random.default_rng(seed).permutation(len(x))
        n_val = int(len(x) * val_fraction)
        self.splits = {"val": perm[:n_val], "train": perm[n_val:]}
        self.x, self.y = torch.from_numpy(x), torch.from_numpy(y)
        self.n_features = x.shape[1]

    def loader(self, split, batch_size, rank, world_size):
        idx = torch.from_numpy(self.splits[split])
        ds = TensorDataset(self.x[idx], self.y[idx])
        sampler = DistributedSampler(ds, num_replicas=world_size, rank=rank, shuffle=(split == "train"))
        return DataLoader(ds, batch_size=batch_size, sampler=sampler, drop_last=(split == "train")), sampler
