import torch


def _grad(out, inp):
    return torch.autograd.grad(out, inp, grad_outputs=torch.ones_like(out), create_graph=True)[0]


def burgers_residual(model, xt, nu):
    """u_t + u u_x - nu u_xx evaluated at the collocation points."""
    xt = xt.clone().requires_grad_(True)
    u = model(xt)
    du = _grad(u, xt)
    u_x, u_t = du[:, :1], du[:, 1:]
    u_xx = _grad(u_x, xt)[:, :1]
    return u_t + u * u_x - nu * u_xx


def boundary_loss(model, xt, u_true):
    return torch.mean((model(xt) - u_true) ** 2)
