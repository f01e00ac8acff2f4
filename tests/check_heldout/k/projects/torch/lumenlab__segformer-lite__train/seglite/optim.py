import torch

from .dist import hvd


def build_optimizer(model, lr, weight_decay, distributed=True):
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        if not p.requires_grad:
            continue
        (no_decay if p.ndim == 1 or name.endswith(".bias") else decay).append(p)
    opt = torch.optim.AdamW([
        {"params": decay, "weight_decay": weight_decay},
        {"params": no_decay, "weight_decay": 0.0},
    ], lr=lr)
    if distributed:
        opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
    return opt


def poly_lr(optimizer, peak_lr, it, max_it, power):
    lr = peak_lr * (1.0 - it / max_it) ** power
    for group in optimizer.param_groups:
        group["lr"] = lr
    return lr
