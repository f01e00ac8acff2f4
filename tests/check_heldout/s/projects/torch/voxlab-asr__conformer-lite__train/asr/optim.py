import torch

OPTIMIZERS = {
    "adamw": lambda params, o: torch.optim.AdamW(params, lr=o["lr"], weight_decay=o["weight_decay"]),
    "sgd": lambda params, o: torch.optim.SGD(params, lr=o["lr"], momentum=0.9, nesterov=True),
}


def build_optimizer(cfg, model, world_size=1):
    o = dict(cfg["optim"])
    # the recipe lr is for one GPU: the effective batch grows with the number of workers
    o["lr"] = o["lr"] * world_size
    return OPTIMIZERS[o["name"]](model.parameters(), o)


def build_scheduler(cfg, optimizer):
    warm = cfg["optim"]["warmup_steps"]
    return torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / warm))
