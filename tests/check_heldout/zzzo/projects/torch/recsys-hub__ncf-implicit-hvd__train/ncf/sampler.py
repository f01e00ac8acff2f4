import numpy as np
import torch


def load_ratings(path):
    # [N, 2] int64: user, item (implicit feedback), leave-one-out test item per user in *_test.npy
    train = np.load(path)
    test = np.load(path.replace(".npy", "_test.npy"))
    return train, test


def user_partition(train, test, rank, size):
    """users are split between workers by user id modulo world size"""
    return train[train[:, 0] % size == rank], test[test[:, 0] % size == rank]


class NegativeSampler(object):
    """uniform negatives over items, drawn fresh for every batch"""

    def __init__(self, n_items, num_neg, seed=0):
        self.n_items = n_items
        self.num_neg = num_neg
        self.rng = np.random.RandomState(seed)

    def batches(self, pos, batch_size, drop_last=True):
        idx = self.rng.permutation(len(pos))
        stop = len(idx) - batch_size + 1 if drop_last else len(idx)
        for s in range(0, stop, batch_size):
            p = pos[idx[s:s + batch_size]]
            users = np.repeat(p[:, 0], 1 + self.num_neg)
            items = np.empty((len(p), 1 + self.num_neg), dtype=np.int64)
            items[:, 0] = p[:, 1]
            items[:, 1:] = self.rng.randint(0, self.n_items, size=(len(p), self.num_neg))
            labels = np.zeros_like(items, dtype=np.float32)
            labels[:, 0] = 1.0
            yield (torch.from_numpy(users), torch.from_numpy(items.reshape(-1)),
                   torch.from_numpy(labels.reshape(-1)))
