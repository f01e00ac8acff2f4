import torch


class LARS(torch.optim.SGD):
    """SGD + momentum whose per-layer step is scaled by the trust ratio ||w|| / ||g||."""

    def __init__(self, params, lr=0.1, momentum=0.9, weight_decay=0.0, trust_coef=1e-3):
        super().__init__(params, lr=lr, momentum=momentum, weight_decay=weight_decay)
        self.trust_coef = trust_coef

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                w, g = p.norm(), p.grad.norm()
                if w > 0 and g > 0:
                    p.grad.mul_(self.trust_coef * w / (g + group["weight_decay"] * w))
        return super().step(closure)


def split_params(model):
    """Weights get the layer-wise optimizer; BN and biases get plain SGD (no trust ratio)."""
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        (decay if p.ndim > 1 else no_decay).append((name, p))
    return decay, no_decay


OPTIMIZERS = {
    "lars": lambda ps, lr, wd: LARS(ps, lr=lr, weight_decay=wd),
    "sgd": lambda ps, lr, wd: torch.optim.SGD(ps, lr=lr, momentum=0.9, weight_decay=wd),
}
