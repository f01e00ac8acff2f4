import numpy as np


class ReplayBuffer:
    def __init__(self, capacity, obs_dim, seed=None):
        self.o = np.zeros((capacity, obs_dim), np.float32)
        self.o2 = np.zeros((capacity, obs_dim), np.float32)
        self.a = np.zeros(capacity, np.int64)
        self.r = np.zeros(capacity, np.float32)
        self.d = np.zeros(capacity, np.float32)
        self.capacity, self.n, self.i = capacity, 0, 0
        self.rng = np.random.default_rng(seed)

    def add(self, o, a, r, o2, d):
        self.o[self.i], self.a[self.i], self.r[self.i], self.o2[self.i], self.d[self.i] = o, a, r, o2, d
        self.i = (self.i + 1) % self.capacity
        self.n = min(self.n + 1, self.capacity)

    def sample(self, batch):
        idx = self.rng.integers(0, self.n, size=batch)
        return self.o[idx], self.a[idx], self.r[idx], self.o2[idx], self.d[idx]
