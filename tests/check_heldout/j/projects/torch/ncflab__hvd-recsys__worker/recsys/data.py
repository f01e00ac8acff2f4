import os

import numpy as np
import torch
from torch.utils.data import Dataset


def read_ratings(path):
    users, items, stamps = [], [], []
    with open(path) as f:
        for line in f:
            u, i, _, t = line.strip().split("::")
            users.append(int(u))
            items.append(int(i))
            stamps.append(int(t))
    return np.array(users), np.array(items), np.array(stamps)


def leave_one_out(users, items, stamps):
    """The latest interaction of every user is held out; the rest is training data."""
    order = np.lexsort((stamps, users))
    users, items = users[order], items[order]
    last = np.r_[users[1:] != users[:-1], True]
    return (users[~last], items[~last]), (users[last], items[last])


class PointwiseTrain(Dataset):
    """Positives plus ``num_neg`` sampled negatives per positive, resampled with ``resample``."""

    def __init__(self, users, items, num_items, num_neg, seed):
        self.users, self.items = users, items
        self.num_items, self.num_neg = num_items, num_neg
        self.seen = set(zip(users.tolist(), items.tolist()))
        self.rng = np.random.default_rng(seed)
        self.resample()

    def resample(self):
        neg_u = np.repeat(self.users, self.num_neg)
        neg_i = self.rng.integers(0, self.num_items, size=len(neg_u))
        self.u = np.concatenate([self.users, neg_u])
        self.i = np.concatenate([self.items, neg_i])
        self.y = np.concatenate([np.ones(len(self.users)), np.zeros(len(neg_u))]).astype(np.float32)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, k):
        return self.u[k], self.i[k], self.y[k]


class HoldoutRanking(Dataset):
    """One row per user: the held-out item first, then 99 sampled negatives."""

    def __init__(self, users, items, num_items, seen, seed=0):
        rng = np.random.default_rng(seed)
        rows = []
        for u, pos in zip(users.tolist(), items.tolist()):
            negs = []
            while len(negs) < 99:
                j = int(rng.integers(0, num_items))
                if (u, j) not in seen and j != pos:
                    negs.append(j)
            rows.append([pos] + negs)
        self.users = torch.as_tensor(users)
        self.cands = torch.as_tensor(np.array(rows))

    def __len__(self):
        return len(self.users)

    def __getitem__(self, k):
        return self.users[k], self.cands[k]


def load_interactions(data_dir, num_neg, seed):
    users, items, stamps = read_ratings(os.path.join(data_dir, "ratings.dat"))
    num_users, num_items = users.max() + 1, items.max() + 1
    (tr_u, tr_i), (ho_u, ho_i) = leave_one_out(users, items, stamps)
    train = PointwiseTrain(tr_u, tr_i, num_items, num_neg, seed)
    holdout = HoldoutRanking(ho_u, ho_i, num_items, train.seen, seed)
    return train, holdout, num_users, num_items
