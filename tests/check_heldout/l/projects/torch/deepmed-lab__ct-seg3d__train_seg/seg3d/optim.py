import torch


def build_optimizer(cfg, model, criterion=None):
    """AdamW/SGD over the network; learnable loss weights get their own group."""
    groups = [{"params": [p for p in model.parameters() if p.requires_grad],
               "weight_decay": cfg["weight_decay"]}]
    if criterion is not None and any(True for _ in criterion.parameters()):
        groups.append({"params": list(criterion.parameters()), "lr": cfg["loss_weight_lr"],
                       "weight_decay": 0.0})
    if cfg["name"] == "sgd":
        return torch.optim.SGD(groups, lr=cfg["lr"], momentum=0.99, nesterov=True)
    return torch.optim.AdamW(groups, lr=cfg["lr"])


def poly_lr(optimizer, base_lrs, epoch, max_epochs, exponent=0.9):
    for group, base in zip(optimizer.param_groups, base_lrs):
        group["lr"] = base * (1 - epoch / max_epochs) ** exponent
