import numpy as np
import torch


def load_shard(path, rank, world_size):
    """Contiguous slice of the (pre-shuffled) interaction export; equal length on every rank."""
    blob = np.load(path)
    users, items = blob["users"], blob["items"]
    per_rank = len(users) // world_size
    lo = rank * per_rank
    return torch.from_numpy(users[lo:lo + per_rank]).long(), torch.from_numpy(items[lo:lo + per_rank]).long()


def batches(users, items, batch_size, generator):
    order = torch.randperm(len(users), generator=generator)
    for i in range(0, len(order) - batch_size + 1, batch_size):
        idx = order[i:i + batch_size]
        yield users[idx], items[idx]
