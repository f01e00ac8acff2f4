import torch


class Accuracy:
    def __init__(self):
        self.reset()

    def reset(self):
        self.correct = 0
        self.total = 0

    def update(self, logits, y):
        self.correct += (logits.argmax(-1) == y).sum().item()
        self.total += y.numel()

    def compute(self):
        return self.correct / max(self.total, 1)


class LossMeter:
    def __init__(self):
        self.s, self.n = 0.0, 0

    def update(self, loss, n):
        self.s += loss * n
        self.n += n

    def compute(self):
        return self.s / max(self.n, 1)
