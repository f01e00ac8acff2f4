import math

import torch


def create_optimizer(model, opt='sgd', lr=0.1, weight_decay=1e-4, momentum=0.9):
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        if not p.requires_grad:
            continue
        (no_decay if p.ndim <= 1 or name.endswith('.bias') else decay).append(p)
    params = [{'params': no_decay, 'weight_decay': 0.}, {'params': decay, 'weight_decay': weight_decay}]
    if opt == 'sgd':
        return torch.optim.SGD(params, lr=lr, momentum=momentum, nesterov=True)
    if opt == 'adamw':
        return torch.optim.AdamW(params, lr=lr)
    raise ValueError(opt)


class CosineLRScheduler:
    """per-update cosine schedule with linear warmup"""

    def __init__(self, optimizer, t_initial, warmup_t=0, lr_min=1e-6, warmup_lr_init=1e-6):
        self.optimizer, self.t_initial, self.warmup_t = optimizer, t_initial, warmup_t
        self.lr_min, self.warmup_lr_init = lr_min, warmup_lr_init
        self.base_values = [g['lr'] for g in optimizer.param_groups]
        self.step_update(0)

    def _get_lr(self, t):
        if t < self.warmup_t:
            return [self.warmup_lr_init + t * (v - self.warmup_lr_init) / self.warmup_t for v in self.base_values]
        t = t - self.warmup_t
        total = max(1, self.t_initial - self.warmup_t)
        return [self.lr_min + 0.5 * (v - self.lr_min) * (1 + math.cos(math.pi * t / total)) for v in self.base_values]

    def step_update(self, num_updates):
        for group, lr in zip(self.optimizer.param_groups, self._get_lr(num_updates)):
            group['lr'] = lr
