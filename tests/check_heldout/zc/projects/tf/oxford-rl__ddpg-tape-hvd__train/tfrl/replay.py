import numpy as np


class Replay:
    def __init__(self, obs_dim, act_dim, size, seed=None):
        self.buf = {k: np.zeros((size, d), np.float32) for k, d in
                    (("o", obs_dim), ("a", act_dim), ("r", 1), ("o2", obs_dim), ("d", 1))}
        self.size, self.ptr, self.full = size, 0, False
        self.rng = np.random.default_rng(seed)

    def store(self, o, a, r, o2, d):
        for k, v in (("o", o), ("a", a), ("r", r), ("o2", o2), ("d", d)):
            self.buf[k][self.ptr] = v
        self.ptr = (self.ptr + 1) % self.size
        self.full = self.full or self.ptr == 0

    def __len__(self):
        return self.size if self.full else self.ptr

    def sample(self, n):
        idx = self.rng.integers(0, len(self), n)
        return {k: v[idx] for k, v in self.buf.items()}
