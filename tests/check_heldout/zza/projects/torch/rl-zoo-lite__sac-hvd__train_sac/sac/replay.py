import numpy as np
import torch


class Replay:
    def __init__(self, obs_dim, act_dim, size, seed=0):
        self.o = np.zeros((size, obs_dim), np.float32)
        self.a = np.zeros((size, act_dim), np.float32)
        self.r = np.zeros(size, np.float32)
        self.o2 = np.zeros((size, obs_dim), np.float32)
        self.d = np.zeros(size, np.float32)
        self.ptr, self.n, self.size = 0, 0, size
        self.rng = np.random.default_rng(seed)

    def store(self, o, a, r, o2, d):
        i = self.ptr
        self.o[i], self.a[i], self.r[i], self.o2[i], self.d[i] = o, a, r, o2, d
        self.ptr, self.n = (i + 1) % self.size, min(self.n + 1, self.size)

    def sample(self, batch, device):
        idx = self.rng.integers(0, self.n, size=batch)
        return [torch.as_tensor(x[idx], device=device) for x in (self.o, self.a, self.r, self.o2, self.d)]
