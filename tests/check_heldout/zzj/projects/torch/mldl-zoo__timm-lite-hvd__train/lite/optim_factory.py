import math

import torch


def create_optimizer(args, model):
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        (no_decay if p.ndim <= 1 or name.endswith('.bias') else decay).append(p)
    groups = [{'params': no_decay, 'weight_decay': 0.0},
              {'params': decay, 'weight_decay': args.weight_decay}]
    if args.opt == 'sgd':
        return torch.optim.SGD(groups, lr=args.lr, momentum=args.momentum, nesterov=True)
    if args.opt == 'adamw':
        return torch.optim.AdamW(groups, lr=args.lr)
    raise ValueError(args.opt)


class CosineWarmup:
    """Per-iteration linear warmup from warmup_lr to args.lr, then cosine down to min_lr."""

    def __init__(self, optimizer, args, iters_per_epoch):
        self.optimizer = optimizer
        self.base_lr, self.min_lr, self.warmup_lr = args.lr, args.min_lr, args.warmup_lr
        self.warmup_iters = args.warmup_epochs * iters_per_epoch
        self.total_iters = args.epochs * iters_per_epoch

    def step_update(self, it):
        if it < self.warmup_iters:
            lr = self.warmup_lr + (self.base_lr - self.warmup_lr) * it / self.warmup_iters
        else:
            t = (it - self.warmup_iters) / max(1, self.total_iters - self.warmup_iters)
            lr = self.min_lr + 0.5 * (self.base_lr - self.min_lr) * (1 + math.cos(math.pi * t))
        for g in self.optimizer.param_groups:
            g['lr'] = lr
        return lr


def create_scheduler(args, optimizer, iters_per_epoch):
    return CosineWarmup(optimizer, args, iters_per_epoch)
