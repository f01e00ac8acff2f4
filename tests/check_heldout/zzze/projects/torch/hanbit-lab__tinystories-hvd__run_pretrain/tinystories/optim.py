import math

import horovod.torch as hvd
import torch


def build_optimizer(model, cfg, lr):
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                             {"params": no_decay, "weight_decay": 0.0}], lr=lr, betas=(0.9, 0.95))
    if cfg.get("compression", "none") == "fp16":
        return hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(),
                                        compression=hvd.Compression.fp16,
                                        backward_passes_per_step=cfg["grad_accum"])
    return opt


def cosine_with_warmup(optimizer, warmup, total, min_ratio=0.1):
    def f(step):
        if step < warmup:
            return (step + 1) / warmup
        t = (step - warmup) / max(1, total - warmup)
        return min_ratio + (1 - min_ratio) * 0.5 * (1 + math.cos(math.pi * min(t, 1.0)))
    return torch.optim.lr_scheduler.LambdaLR(optimizer, f)
