import copy

import torch


class SWAGDiag:
    """Diagonal SWAG (Maddox et al. 2019): running first and second moments of the weights."""

    def __init__(self, model, max_var=1e-2):
        self.base = copy.deepcopy(model)
        self.n = 0
        self.mean = [torch.zeros_like(p) for p in model.parameters()]
        self.sq_mean = [torch.zeros_like(p) for p in model.parameters()]
        self.max_var = max_var

    @torch.no_grad()
    def collect(self, model):
        for m, s, p in zip(self.mean, self.sq_mean, model.parameters()):
            m.mul_(self.n / (self.n + 1)).add_(p / (self.n + 1))
            s.mul_(self.n / (self.n + 1)).add_(p ** 2 / (self.n + 1))
        for dst, src in zip(self.base.buffers(), model.buffers()):
            dst.copy_(src)
        self.n += 1

    @torch.no_grad()
    def sample(self, scale=0.5, generator=None):
        for p, m, s in zip(self.base.parameters(), self.mean, self.sq_mean):
            var = (s - m ** 2).clamp(1e-30, self.max_var)
            eps = torch.randn(m.shape, generator=generator).to(m.device)
            p.copy_(m + (scale * var).sqrt() * eps)
        return self.base

    def state_dict(self):
        return {"n": self.n, "mean": self.mean, "sq_mean": self.sq_mean}
