import os

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

import horovod.torch as hvd


class TripletSet(Dataset):
    """(user, positive item, sampled negative item); negatives are re-drawn per access."""

    def __init__(self, users, items, n_items, seed=0):
        self.users, self.items, self.n_items = users, items, n_items
        self.rng = np.random.default_rng(seed)

    def __len__(self):
        return len(self.users)

    def __getitem__(self, i):
        return int(self.users[i]), int(self.items[i]), int(self.rng.integers(self.n_items))


def load_interactions(root):
    blob = np.load(os.path.join(root, "interactions.npz"))
    users, items = blob["users"], blob["items"]
    n_users, n_items = int(users.max()) + 1, int(items.max()) + 1
    # last interaction of every 20th user is held out (same split on every worker)
    held = np.zeros(len(users), dtype=bool)
    held[blob["holdout_idx"]] = True
    val_pairs = np.stack([users[held], items[held]], axis=1)
    return TripletSet(users[~held], items[~held], n_items), val_pairs, n_users, n_items


def make_train_loader(dataset, batch_size):
    # ElasticSampler re-partitions the remaining indices when workers join or leave
    sampler = hvd.elastic.ElasticSampler(dataset, shuffle=True, seed=17)
    loader = DataLoader(dataset, batch_size=batch_size, sampler=sampler, num_workers=2)
    return loader, sampler


def as_tensor(x):
    return torch.as_tensor(x, dtype=torch.long)
