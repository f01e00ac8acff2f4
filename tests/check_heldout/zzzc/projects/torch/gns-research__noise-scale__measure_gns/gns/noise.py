"""Gradient noise scale, the two-batch-size estimator of McCandlish et al. (2018).

|G_B|^2 is measured at the per-worker batch B_small (local gradient) and at the
global batch B_big = B_small * world (allreduced gradient).
"""
import torch
import horovod.torch as hvd


def _flat_grad(loss, params):
    grads = torch.autograd.grad(loss, params)
    return torch.cat([g.reshape(-1) for g in grads])


def noise_scale_sample(model, loss_fn, x, y):
    params = [p for p in model.parameters() if p.requires_grad]
    g_local = _flat_grad(loss_fn(model(x), y), params)
    g_global = hvd.allreduce(g_local, name="gns_flat_grad")
    b_small = x.shape[0]
    b_big = b_small * hvd.size()
    sq_small = hvd.allreduce(g_local.pow(2).sum(), name="gns_sq_small").item()
    sq_big = g_global.pow(2).sum().item()
    if b_big == b_small:
        return None
    g2 = (b_big * sq_big - b_small * sq_small) / (b_big - b_small)
    trace = (sq_small - sq_big) / (1.0 / b_small - 1.0 / b_big)
    return g2, trace


class EMA:
    def __init__(self, beta=0.95):
        self.beta, self.value = beta, None

    def update(self, v):
        self.value = v if self.value is None else self.beta * self.value + (1 - self.beta) * v
        return self.value
