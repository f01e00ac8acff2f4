import math

import torch
import horovod.torch as hvd


def build_optimizer(model, args):
    """SGD with no weight decay on norms and biases, wrapped for Horovod."""
    named = model.named_parameters()
    decay = [p for n, p in named if p.requires_grad and p.ndim > 1]
    no_decay = [p for n, p in model.named_parameters() if p.requires_grad and p.ndim <= 1]
    groups = [{"params": decay, "weight_decay": args.wd}, {"params": no_decay, "weight_decay": 0.0}]
    optimizer = torch.optim.SGD(groups, lr=args.lr * hvd.size(), momentum=0.9, nesterov=True)
    return hvd.DistributedOptimizer(optimizer, named_parameters=named,
                                    backward_passes_per_step=args.accum)


def warmup_cosine(optimizer, warmup_steps, total_steps):
    def factor(step):
        if step < warmup_steps:
            return (step + 1) / max(1, warmup_steps)
        t = (step - warmup_steps) / max(1, total_steps - warmup_steps)
        return 0.5 * (1.0 + math.cos(math.pi * min(t, 1.0)))
    return torch.optim.lr_scheduler.LambdaLR(optimizer, factor)
