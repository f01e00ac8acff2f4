import math

import horovod.torch as hvd
import torch


def scaled_lr(base_lr):
    """Linear scaling of the single-process lr to the global batch of all Horovod workers."""
    return base_lr * hvd.size()


def warmup_cosine(optimizer, warmup_steps, total_steps):
    def factor(step):
        if step < warmup_steps:
            return (step + 1) / warmup_steps
        t = (step - warmup_steps) / max(1, total_steps - warmup_steps)
        return 0.5 * (1.0 + math.cos(math.pi * t))
    return torch.optim.lr_scheduler.LambdaLR(optimizer, factor)
