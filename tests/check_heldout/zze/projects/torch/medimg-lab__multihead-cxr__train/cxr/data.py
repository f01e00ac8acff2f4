import numpy as np
import torch
from torch.utils.data import ConcatDataset, Dataset, Sampler

import horovod.torch as hvd


class NpyCXR(Dataset):
    """images.npy uint8 [N, H, W]; findings.npy {0,1} [N, 7]; view.npy {0: PA, 1: AP}; age.npy float years."""

    def __init__(self, root):
        self.images = np.load(f"{root}/images.npy", mmap_mode="r")
        self.findings = np.load(f"{root}/findings.npy").astype(np.float32)
        self.view = np.load(f"{root}/view.npy").astype(np.int64)
        self.age = np.load(f"{root}/age.npy").astype(np.float32)

    def __len__(self):
        return len(self.findings)

    def __getitem__(self, i):
        img = torch.from_numpy(np.array(self.images[i], dtype=np.float32) / 255.0).unsqueeze(0)
        return img, self.findings[i], self.view[i], self.age[i] / 100.0


def mixed_sources(roots, mix):
    """Concatenate several sources; per-sample weights so that source k is drawn with probability mix[k]."""
    parts = [NpyCXR(r) for r in roots]
    weights = np.concatenate([np.full(len(p), m / len(p)) for p, m in zip(parts, mix)])
    return ConcatDataset(parts), weights


class DistributedWeightedSampler(Sampler):
    """Weighted sampling with replacement; all workers draw the same sequence and keep every size-th index."""

    def __init__(self, weights, num_samples, seed=0):
        self.weights = torch.as_tensor(weights, dtype=torch.double)
        self.total = num_samples - num_samples % hvd.size()
        self.seed, self.epoch = seed, 0

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __iter__(self):
        g = torch.Generator()
        g.manual_seed(self.seed + self.epoch)
        idx = torch.multinomial(self.weights, self.total, replacement=True, generator=g)
        return iter(idx[hvd.rank()::hvd.size()].tolist())

    def __len__(self):
        return self.total // hvd.size()
