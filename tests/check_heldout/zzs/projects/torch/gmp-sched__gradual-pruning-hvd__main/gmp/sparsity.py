import torch


def cubic_sparsity(epoch, cfg):
    """s_t = s_f + (s_i - s_f) * (1 - (t - t0) / (n dt))^3"""
    if epoch < cfg.prune_start:
        return cfg.initial_sparsity
    if epoch >= cfg.prune_end:
        return cfg.final_sparsity
    frac = (epoch - cfg.prune_start) / (cfg.prune_end - cfg.prune_start)
    return cfg.final_sparsity + (cfg.initial_sparsity - cfg.final_sparsity) * (1 - frac) ** 3


class MagnitudePruner:
    def __init__(self, model):
        self.params = {n: p for n, p in model.named_parameters() if p.dim() == 4}
        self.masks = {n: torch.ones_like(p) for n, p in self.params.items()}

    @torch.no_grad()
    def update(self, sparsity):
        for n, p in self.params.items():
            k = int(sparsity * p.numel())
            if k < 1:
                continue
            thr = p.abs().flatten().kthvalue(k).values
            self.masks[n] = (p.abs() > thr).float()
        self.apply()

    @torch.no_grad()
    def apply(self):
        for n, p in self.params.items():
            p.mul_(self.masks[n])

    def state_dict(self):
        return {n: m.cpu() for n, m in self.masks.items()}
