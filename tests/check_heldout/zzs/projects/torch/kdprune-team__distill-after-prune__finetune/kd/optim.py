import math

import torch
import horovod.torch as hvd


def build_optimizer(model, cfg):
    # linear scaling rule: lr grows with the number of workers
    lr = cfg["lr"] * hvd.size()
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9, weight_decay=cfg.get("weight_decay", 5e-4))
    return hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())


def cosine_with_warmup(opt, warmup, total):
    def f(step):
        if step < warmup:
            return (step + 1) / warmup
        return 0.5 * (1 + math.cos(math.pi * (step - warmup) / max(1, total - warmup)))
    return torch.optim.lr_scheduler.LambdaLR(opt, f)
