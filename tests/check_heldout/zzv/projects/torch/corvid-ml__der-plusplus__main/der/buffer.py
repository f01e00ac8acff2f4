import numpy as np
import torch


class LogitBuffer:
    """Reservoir of (x, y, logits) triples for DER++ (Buzzega et al. 2020)."""

    def __init__(self, size, x_shape, n_classes, seed):
        self.size = size
        self.x = torch.zeros((size,) + tuple(x_shape))
        self.y = torch.zeros(size, dtype=torch.long)
        self.logits = torch.zeros(size, n_classes)
        self.n = 0
        self.rng = np.random.default_rng(seed)

    def add(self, x, y, logits):
        for i in range(x.size(0)):
            if self.n < self.size:
                j = self.n
            else:
                j = self.rng.integers(0, self.n + 1)
            if j < self.size:
                self.x[j], self.y[j], self.logits[j] = x[i], y[i], logits[i]
            self.n += 1

    def draw(self, k):
        filled = min(self.n, self.size)
        if filled == 0:
            return None
        j = torch.from_numpy(self.rng.choice(filled, size=min(k, filled), replace=False))
        return self.x[j], self.y[j], self.logits[j]
