import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader, DistributedSampler


class NoisyPatches(Dataset):
    """Low-dose CT stand-in: clean random smooth patches + gaussian noise."""

    def __init__(self, n, patch, sigma, seed):
        rs = np.random.RandomState(seed)
        clean = rs.rand(n, 1, patch // 4, patch // 4).astype("float32")
        clean = np.kron(clean, np.ones((1, 1, 4, 4), dtype="float32"))
        self.clean = torch.from_numpy(clean)
        self.noisy = self.clean + sigma * torch.from_numpy(rs.randn(*clean.shape).astype("float32"))

    def __len__(self):
        return len(self.clean)

    def __getitem__(self, i):
        return self.noisy[i], self.clean[i]


def loaders(opt, rank, size):
    tr = NoisyPatches(opt.n_train, opt.patch, opt.noise_sigma, seed=opt.seed)
    va = NoisyPatches(opt.n_val, opt.patch, opt.noise_sigma, seed=opt.seed + 1)
    tr_s = DistributedSampler(tr, num_replicas=size, rank=rank, shuffle=True, seed=opt.seed)
    va_s = DistributedSampler(va, num_replicas=size, rank=rank, shuffle=False)
    return (DataLoader(tr, batch_size=opt.batch_size, sampler=tr_s, drop_last=True),
            DataLoader(va, batch_size=opt.batch_size, sampler=va_s), tr_s)
