import random
import torch


class Reservoir:
    """Reservoir sampling over this worker's part of the stream."""

    def __init__(self, size, seed=0):
        self.size = size
        self.xs, self.ys = [], []
        self.seen = 0
        self.rng = random.Random(seed)

    def add(self, x, y):
        for xi, yi in zip(x, y):
            if len(self.xs) < self.size:
                self.xs.append(xi)
                self.ys.append(yi)
            else:
                j = self.rng.randint(0, self.seen)
                if j < self.size:
                    self.xs[j], self.ys[j] = xi, yi
            self.seen += 1

    def sample(self, n):
        if not self.xs:
            return None
        idx = self.rng.sample(range(len(self.xs)), min(n, len(self.xs)))
        return torch.stack([self.xs[i] for i in idx]), torch.stack([self.ys[i] for i in idx])
