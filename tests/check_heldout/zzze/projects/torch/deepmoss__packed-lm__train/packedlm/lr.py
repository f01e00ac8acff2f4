import math


class WarmupCosine:
    """Per-optimizer-step schedule; call .apply(optimizer, step) before optimizer.step()."""

    def __init__(self, peak, warmup, total, final_frac=0.1):
        self.peak, self.warmup, self.total, self.final = peak, warmup, total, peak * final_frac

    def __call__(self, step):
        if step < self.warmup:
            return self.peak * (step + 1) / self.warmup
        p = min(1.0, (step - self.warmup) / max(1, self.total - self.warmup))
        return self.final + 0.5 * (self.peak - self.final) * (1 + math.cos(math.pi * p))

    def apply(self, optimizer, step):
        lr = self(step)
        for g in optimizer.param_groups:
            g["lr"] = lr
        return lr
