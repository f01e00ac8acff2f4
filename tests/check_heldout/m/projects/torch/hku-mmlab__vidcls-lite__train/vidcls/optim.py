import math

import torch

from . import dist


def build_optimizer(cfg, model):
    lr = cfg["train"]["base_lr"] * dist.world_size()
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        (no_decay if p.ndim <= 1 else decay).append(p)
    groups = [{"params": decay, "weight_decay": cfg["train"]["weight_decay"]},
              {"params": no_decay, "weight_decay": 0.0}]
    return torch.optim.SGD(groups, lr=lr, momentum=0.9, nesterov=True)


def build_scheduler(cfg, optimizer, steps_per_epoch):
    warm = cfg["train"]["warmup_epochs"] * steps_per_epoch
    total = cfg["train"]["epochs"] * steps_per_epoch

    def factor(step):
        if step < warm:
            return (step + 1) / warm
        return 0.5 * (1 + math.cos(math.pi * (step - warm) / max(1, total - warm)))

    # LambdaLR multiplies the lr the optimizer was built with (already world-size scaled)
    return torch.optim.lr_scheduler.LambdaLR(optimizer, factor)
