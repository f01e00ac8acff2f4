import torch
import horovod.torch as hvd


def split_params(model):
    mu, rho = [], []
    for name, p in model.named_parameters():
        (rho if name.endswith("_rho") else mu).append((name, p))
    return mu, rho


def build_optimizers(model, lr, rho_lr):
    """Means and log-scales get separate optimizers: rho needs a much smaller step."""
    mu, rho = split_params(model)
    mu_opt = torch.optim.Adam([p for _, p in mu], lr=lr * hvd.size())
    mu_opt = hvd.DistributedOptimizer(mu_opt, named_parameters=mu)
    rho_opt = torch.optim.Adam([p for _, p in rho], lr=rho_lr * hvd.size())
    return mu_opt, rho_opt
