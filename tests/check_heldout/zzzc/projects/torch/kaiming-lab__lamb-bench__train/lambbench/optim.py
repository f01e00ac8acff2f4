import math

import torch
from torch.optim import Optimizer


class LAMB(Optimizer):
    """Layer-wise Adaptive Moments (You et al., 2019), written out by hand."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-6, weight_decay=0.0):
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay)
        super().__init__(params, defaults)
        self.last_trust = {}

    @torch.no_grad()
    def step(self, closure=None):
        loss = closure() if closure is not None else None
        for group in self.param_groups:
            b1, b2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                st = self.state[p]
                if not st:
                    st["step"] = 0
                    st["m"] = torch.zeros_like(p)
                    st["v"] = torch.zeros_like(p)
                st["step"] += 1
                st["m"].mul_(b1).add_(p.grad, alpha=1 - b1)
                st["v"].mul_(b2).addcmul_(p.grad, p.grad, value=1 - b2)
                m_hat = st["m"] / (1 - b1 ** st["step"])
                v_hat = st["v"] / (1 - b2 ** st["step"])
                upd = m_hat / (v_hat.sqrt() + group["eps"])
                if group["weight_decay"]:
                    upd.add_(p, alpha=group["weight_decay"])
                w_norm, u_norm = p.norm(), upd.norm()
                trust = (w_norm / u_norm).item() if w_norm > 0 and u_norm > 0 else 1.0
                self.last_trust[id(p)] = trust
                p.add_(upd, alpha=-group["lr"] * trust)
        return loss


class LARS(Optimizer):
    """SGD with momentum and a layer-wise trust ratio (You et al., 2017)."""

    def __init__(self, params, lr=0.1, momentum=0.9, weight_decay=5e-4, eta=1e-3):
        super().__init__(params, dict(lr=lr, momentum=momentum, weight_decay=weight_decay, eta=eta))

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                d_p = p.grad.add(p, alpha=group["weight_decay"])
                w_norm, g_norm = p.norm(), d_p.norm()
                local_lr = group["eta"] * w_norm / (g_norm + 1e-9) if w_norm > 0 else 1.0
                buf = self.state[p].setdefault("mom", torch.zeros_like(p))
                buf.mul_(group["momentum"]).add_(d_p, alpha=float(local_lr) * group["lr"])
                p.sub_(buf)


REGISTRY = {
    "sgd": lambda params, lr: torch.optim.SGD(params, lr=lr, momentum=0.9),
    "adam": lambda params, lr: torch.optim.Adam(params, lr=lr),
    "lamb": lambda params, lr: LAMB(params, lr=lr, weight_decay=0.01),
    "lars": lambda params, lr: LARS(params, lr=lr),
}


def build_optimizer(name, params, base_lr, world_size, rule="linear"):
    """Scale the single-worker lr to the global batch, then build by name."""
    if rule == "linear":
        lr = base_lr * world_size
    elif rule == "sqrt":
        lr = base_lr * math.sqrt(world_size)
    else:
        raise ValueError(f"unknown scaling rule {rule!r}")
    return REGISTRY[name](params, lr), lr
