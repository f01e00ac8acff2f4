import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader, Subset


class NpyImages(Dataset):
    """uint8 array (N, H, W, 3) -> float tensors in [-1, 1]."""

    def __init__(self, path):
        self.images = np.load(path, mmap_mode="r")

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        img = torch.from_numpy(np.ascontiguousarray(self.images[i])).permute(2, 0, 1).float()
        return img / 127.5 - 1.0


def rank_indices(n, rank, world_size):
    """Shuffle once, then give every worker an interleaved slice of equal length."""
    order = np.random.permutation(n)
    per_rank = n // world_size
    return order[rank::world_size][:per_rank].tolist()


def make_loader(path, batch_size, rank, world_size, num_workers=2):
    full = NpyImages(path)
    shard = Subset(full, rank_indices(len(full), rank, world_size))
    return DataLoader(shard, batch_size=batch_size, shuffle=True, drop_last=True,
                      num_workers=num_workers, pin_memory=torch.cuda.is_available())
