import math

import torch
import horovod.torch as hvd


def get_optimizer(cfg, model, distributed=True):
    opt_cfg = cfg["optimizer"]
    world = hvd.size() if distributed else 1
    sgd = torch.optim.SGD(
        model.parameters(),
        lr=opt_cfg["lr"] * world,  # linear scaling: the global batch is batch_size * world
        momentum=opt_cfg.get("momentum", 0.9),
        weight_decay=opt_cfg.get("weight_decay", 0.0),
        nesterov=True,
    )
    if not distributed:
        return sgd
    compression = hvd.Compression.fp16 if opt_cfg.get("fp16_allreduce") else hvd.Compression.none
    return hvd.DistributedOptimizer(sgd, named_parameters=model.named_parameters(), compression=compression)


def build_scheduler(cfg, optimizer, iters_per_epoch):
    warmup = cfg["optimizer"].get("warmup_epochs", 0) * iters_per_epoch
    total = cfg["train"]["epochs"] * iters_per_epoch

    def factor(it):
        if it < warmup:
            return (it + 1) / warmup
        progress = (it - warmup) / max(1, total - warmup)
        return 0.5 * (1.0 + math.cos(math.pi * progress))

    # LambdaLR multiplies the lr the optimizer was built with, i.e. the scaled one
    return torch.optim.lr_scheduler.LambdaLR(optimizer, factor)
