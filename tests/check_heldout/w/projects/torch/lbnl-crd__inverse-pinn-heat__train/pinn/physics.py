import torch
import torch.nn as nn


def grad(out, inp):
    return torch.autograd.grad(out, inp, grad_outputs=torch.ones_like(out), create_graph=True)[0]


class HeatResidual(nn.Module):
    """u_t - kappa (u_xx + u_yy) = 0, with the unknown diffusivity kappa learned in log space."""

    def __init__(self, kappa_init=0.1):
        super().__init__()
        self.log_kappa = nn.Parameter(torch.tensor(float(kappa_init)).log())

    @property
    def kappa(self):
        return self.log_kappa.exp()

    def forward(self, model, xyt):
        xyt = xyt.clone().requires_grad_(True)
        u = model(xyt)
        du = grad(u, xyt)
        u_x, u_y, u_t = du[:, 0:1], du[:, 1:2], du[:, 2:3]
        u_xx = grad(u_x, xyt)[:, 0:1]
        u_yy = grad(u_y, xyt)[:, 1:2]
        return u_t - self.kappa * (u_xx + u_yy)
