import torch


def build_optimizer(model, physics, lr, kappa_lr):
    """Adam over the field network and the PDE coefficients (separate lr for the coefficients)."""
    groups = [{"params": model.parameters(), "lr": lr},
              {"params": physics.parameters(), "lr": kappa_lr}]
    return torch.optim.Adam(groups)
