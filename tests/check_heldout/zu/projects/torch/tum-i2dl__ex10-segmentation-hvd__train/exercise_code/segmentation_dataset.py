import numpy as np
import torch
from torch.utils.data import Dataset, Sampler


class SegmentationData(Dataset):
    """MSRC-v2 subset, pre-packed as <root>/<split>.npz (images uint8 NHWC, masks int NHW)."""

    def __init__(self, root, split):
        pack = np.load(f"{root}/{split}.npz")
        self.images = pack["images"]
        self.masks = pack["masks"]

    def __len__(self):
        return len(self.images)

    def __getitem__(self, idx):
        img = torch.from_numpy(self.images[idx]).permute(2, 0, 1).float() / 255.0
        mask = torch.from_numpy(self.masks[idx]).long()
        return img, mask


class WorkerShardSampler(Sampler):
    """Every worker draws the same permutation (same seed + epoch) and keeps every
    num_workers-th index, truncated so that all workers get the same count."""

    def __init__(self, n, num_workers, worker_id, seed=0):
        self.n, self.k, self.i, self.seed = n, num_workers, worker_id, seed
        self.per_worker = n // num_workers
        self.epoch = 0

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __iter__(self):
        g = torch.Generator()
        g.manual_seed(self.seed + self.epoch)
        perm = torch.randperm(self.n, generator=g).tolist()
        return iter(perm[self.i::self.k][: self.per_worker])

    def __len__(self):
        return self.per_worker
