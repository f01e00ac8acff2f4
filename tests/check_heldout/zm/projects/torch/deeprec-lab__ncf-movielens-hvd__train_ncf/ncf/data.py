import csv
from collections import defaultdict

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class RatingsData:
    """Implicit feedback from ratings.csv (userId,movieId,rating,timestamp); last item per user held out."""

    def __init__(self, path, seed=0, num_eval_neg=99):
        by_user = defaultdict(list)
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                by_user[int(row["userId"])].append((int(row["timestamp"]), int(row["movieId"])))
        users = sorted(by_user)
        items = sorted({m for v in by_user.values() for _, m in v})
        uid = {u: i for i, u in enumerate(users)}
        iid = {m: i for i, m in enumerate(items)}
        self.num_users, self.num_items = len(users), len(items)
        rng = np.random.RandomState(seed)
        self.train_u, self.train_i, self.test_item, self.seen = [], [], {}, defaultdict(set)
        for u, hist in by_user.items():
            hist = [iid[m] for _, m in sorted(hist)]
            self.test_item[uid[u]] = hist[-1]
            self.seen[uid[u]].update(hist)
            self.train_u += [uid[u]] * (len(hist) - 1)
            self.train_i += hist[:-1]
        self.eval_users = np.array(sorted(self.test_item))
        self.eval_negs = {u: rng.choice([i for i in range(self.num_items) if i not in self.seen[u]],
                                        num_eval_neg, replace=False) for u in self.eval_users}


class TrainPairs(Dataset):
    def __init__(self, data, negatives):
        self.data, self.negatives = data, negatives
        self.resample(0)

    def resample(self, epoch):
        rng = np.random.RandomState(1000 + epoch)   # same negatives on every worker
        n_pos = len(self.data.train_u)
        neg_u = np.repeat(self.data.train_u, self.negatives)
        neg_i = rng.randint(0, self.data.num_items, size=n_pos * self.negatives)
        self.u = np.concatenate([self.data.train_u, neg_u])
        self.i = np.concatenate([self.data.train_i, neg_i])
        self.y = np.concatenate([np.ones(n_pos), np.zeros(len(neg_u))]).astype(np.float32)
        self.order = rng.permutation(len(self.y))

    def __len__(self):
        return len(self.y)

    def __getitem__(self, k):
        j = self.order[k]
        return self.u[j], self.i[j], self.y[j]

    def loader(self, batch_size, rank, world):
        per_rank = len(self) // world
        shard = torch.utils.data.Subset(self, range(rank * per_rank, (rank + 1) * per_rank))
        return DataLoader(shard, batch_size=batch_size, shuffle=False, drop_last=True)
