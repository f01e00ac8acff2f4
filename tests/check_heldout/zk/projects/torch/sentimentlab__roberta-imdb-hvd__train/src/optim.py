import torch
import horovod.torch as hvd


def build_optimizer(model, lr, weight_decay):
    opt = torch.optim.AdamW(model.parameters(), lr=lr * hvd.size(), weight_decay=weight_decay)
    return hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())


class WarmupLinear:
    """Minimal linear warmup + linear decay that writes the lr into the param groups."""

    def __init__(self, optimizer, warmup, total):
        self.optimizer, self.warmup, self.total = optimizer, warmup, total
        self.peak = [g["lr"] for g in optimizer.param_groups]
        self.t = 0
        self._apply()

    def _factor(self):
        if self.t < self.warmup:
            return (self.t + 1) / self.warmup
        return max(0.0, (self.total - self.t) / max(1, self.total - self.warmup))

    def _apply(self):
        for g, peak in zip(self.optimizer.param_groups, self.peak):
            g["lr"] = peak * self._factor()

    @property
    def lr(self):
        return self.optimizer.param_groups[0]["lr"]

    def step(self):
        self.t += 1
        self._apply()

    def state_dict(self):
        return {"t": self.t, "peak": self.peak}

    def load_state_dict(self, s):
        self.t, self.peak = s["t"], s["peak"]
        self._apply()
