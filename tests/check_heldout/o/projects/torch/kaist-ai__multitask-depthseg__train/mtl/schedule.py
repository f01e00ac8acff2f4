import math


class WarmupCosine:
    """Per-iteration lr: linear warm-up from warmup_factor*base to base, then cosine to min_ratio*base."""

    def __init__(self, optimizer, total_iters, warmup_iters=500, warmup_factor=0.1, min_ratio=0.01):
        self.opt = optimizer
        self.base = [g["lr"] for g in optimizer.param_groups]
        self.total, self.warm = total_iters, warmup_iters
        self.wf, self.min_ratio = warmup_factor, min_ratio
        self.it = 0

    def factor(self, it):
        if it < self.warm:
            a = it / max(1, self.warm)
            return self.wf * (1 - a) + a
        t = min(1.0, (it - self.warm) / max(1, self.total - self.warm))
        return self.min_ratio + (1 - self.min_ratio) * 0.5 * (1 + math.cos(math.pi * t))

    def step(self):
        self.it += 1
        f = self.factor(self.it)
        for g, b in zip(self.opt.param_groups, self.base):
            g["lr"] = b * f
        return self.base[0] * f

    def state_dict(self):
        return {"it": self.it}

    def load_state_dict(self, d):
        self.it = d["it"]
